// Anchor: @rekog/mcp-nest 2.0.5, stateless (its default), serving the same echo tool from an
// @McpController. Decorators are applied with Reflect.decorate (plain JavaScript).
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Payload } from '@nestjs/microservices';
import { McpController, McpStrategy, StreamableHttpTransport, Tool } from '@rekog/mcp-nest';
import { z } from 'zod';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { ExpressAdapter } from '@nestjs/platform-express';

function stableExpressAdapter() {
  const withPrototype = (base, prototype) => {
    function Constructed(...args) {
      base.apply(this, args);
    }
    Constructed.prototype = prototype;
    return Constructed;
  };
  return new (class extends ExpressAdapter {
    initHttpServer(options) {
      super.initHttpServer(options);
      const app = this.getInstance();
      this.setHttpServer(
        createServer(
          {
            IncomingMessage: withPrototype(IncomingMessage, app.request),
            ServerResponse: withPrototype(ServerResponse, app.response),
          },
          app,
        ),
      );
    }
  })();
}

class EchoController {
  echo(payload) {
    return {
      content: [
        { type: 'text', text: JSON.stringify({ data: { text: payload.text.repeat(payload.times), by: null } }) },
      ],
    };
  }
}
const descriptor = Object.getOwnPropertyDescriptor(EchoController.prototype, 'echo');
Reflect.decorate(
  [
    Tool({
      name: 'bench_echo',
      description: 'Echoes a small DTO (benchmark).',
      parameters: z.object({ text: z.string().max(100), times: z.number().int().min(1).max(5) }),
    }),
  ],
  EchoController.prototype,
  'echo',
  descriptor,
);
Payload()(EchoController.prototype, 'echo', 0);
const Controller = Reflect.decorate([McpController()], EchoController);

const mcp = new McpStrategy({ name: 'bench-mcp-nest', version: '1.0.0', transports: [new StreamableHttpTransport()] });
class AppModule {}
Reflect.decorate([Module({ controllers: [Controller] })], AppModule);

// STABLE_ADAPTER=1: the same Express prototype fix our app uses (StableExpressAdapter), applied to
// MCP-Nest too, to show how much of the difference is that fix rather than the MCP dispatch.
const app = await NestFactory.create(AppModule, ...(process.env.STABLE_ADAPTER ? [stableExpressAdapter()] : []), {
  logger: ['error'],
});
mcp.setHttpAdapter(app.getHttpAdapter());
app.connectMicroservice({ strategy: mcp });
await app.startAllMicroservices();
await app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
console.log(`READY ${JSON.stringify({ port: app.getHttpServer().address().port })}`);
