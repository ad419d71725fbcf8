import { Injectable, Module } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsString, ValidateNested } from 'class-validator';
import { McpArg, McpModule, McpResource, McpTool } from '@kobana/nest-mcp';

// The response DTO: the same class-validator metadata as an input DTO makes the outputSchema.
export class Forecast {
  @IsString() city: string;
  @IsInt() celsius: number;
}
export class ForecastEnvelope {
  @ValidateNested() @Type(() => Forecast) data: Forecast;
}

@Injectable()
export class ForecastService {
  @McpTool({
    name: 'forecast_get',
    description: "A city's forecast, shown in the forecast app",
    annotations: { readOnlyHint: true },
    output: ForecastEnvelope, // → outputSchema, and structuredContent on every result
    ui: 'ui://forecast/view', // → _meta.ui.resourceUri for hosts that render MCP Apps
  })
  get(@McpArg('city') city: string) {
    return { data: { city, celsius: 21 } };
  }

  // The app: self-contained HTML, no origin allowed beyond its own document.
  @McpResource({ uri: 'ui://forecast/view', name: 'forecast_view', app: { csp: {}, prefersBorder: true } })
  view() {
    return '<!doctype html><title>Forecast</title><main id="forecast">…</main>';
  }
}

@Module({
  imports: [
    McpModule.forRoot({
      serverInfo: { name: 'forecast', version: '1.0.0' },
      principal: () => ({ subject: 'local-dev', scopes: [] }),
    }),
  ],
  providers: [ForecastService],
})
export class AppModule {}
