import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpArg, McpModule, McpPrompt, McpResource, McpResourceTemplate, McpTool } from '@kobana/nest-mcp';

/** Issue 3: a tool set that cannot be served correctly stops the app at bootstrap, naming the places. */
const SERVER_INFO = { name: 't', version: '1' };

async function boot(providers: unknown[]): Promise<unknown> {
  @Module({ imports: [McpModule.forRoot({ serverInfo: SERVER_INFO })], providers: providers as never[] })
  class AppModule {}
  const app = await NestFactory.create(AppModule, { logger: false, abortOnError: false });
  try {
    await app.init();
    return undefined;
  } finally {
    await app.close();
  }
}

@Injectable()
class BillingService {
  @McpTool({ name: 'charge', description: 'Charges.' })
  charge(@McpArg('amount') amount: number) {
    return amount;
  }
}

@Injectable()
class PaymentsService {
  @McpTool({ name: 'charge', description: 'Also charges.' })
  pay() {
    return 1;
  }
}

@Injectable()
class BadNameService {
  @McpTool({ name: 'has spaces', description: 'x' })
  run() {
    return 1;
  }
}

@Injectable()
class UndecoratedParamService {
  @McpTool({ name: 'lonely', description: 'x' })
  run(@McpArg('a') a: string, b: string) {
    return a + b;
  }
}

@Injectable()
class DocsA {
  @McpResource({ uri: 'test://doc', name: 'doc' })
  doc() {
    return 'a';
  }

  @McpPrompt({ name: 'ask' })
  ask() {
    return 'a';
  }
}

@Injectable()
class DocsB {
  @McpResource({ uri: 'test://doc', name: 'doc2' })
  doc() {
    return 'b';
  }
}

@Injectable()
class PromptsB {
  @McpPrompt({ name: 'ask' })
  again() {
    return 'b';
  }
}

@Injectable()
class BadTemplate {
  @McpResourceTemplate({ uriTemplate: 'test://x/{id}', name: 'x' })
  read(@McpArg('other') other: string) {
    return other;
  }
}

describe('bootstrap checks', () => {
  it('a duplicate resource URI names both places', async () => {
    await expect(boot([DocsA, DocsB])).rejects.toThrow(
      "@McpResource uri 'test://doc' is declared twice: on DocsA.doc and on DocsB.doc",
    );
  });

  it('a duplicate prompt name names both places', async () => {
    await expect(boot([DocsA, PromptsB])).rejects.toThrow(
      "@McpPrompt name 'ask' is declared twice: on DocsA.ask and on PromptsB.again",
    );
  });

  it('a template variable without a matching argument is refused', async () => {
    await expect(boot([BadTemplate])).rejects.toThrow(
      /BadTemplate\.read: URI variable\(s\) of test:\/\/x\/\{id\} need @McpArg parameter\(s\) id/,
    );
  });

  it('a duplicate tool name names both places', async () => {
    await expect(boot([BillingService, PaymentsService])).rejects.toThrow(
      "@McpTool name 'charge' is declared twice: on BillingService.charge and on PaymentsService.pay",
    );
  });

  it('an invalid tool name is refused', async () => {
    await expect(boot([BadNameService])).rejects.toThrow(/'has spaces' on BadNameService\.run must match/);
  });

  it('a parameter without an MCP decorator is refused', async () => {
    await expect(boot([UndecoratedParamService])).rejects.toThrow(/parameter #2 of UndecoratedParamService\.run/);
  });

  it('a valid tool set boots', async () => {
    await expect(boot([BillingService])).resolves.toBeUndefined();
  });
});
