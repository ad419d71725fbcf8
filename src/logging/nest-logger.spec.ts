import { Writable } from 'node:stream';
import { PinoNestLogger } from './nest-logger.js';
import { createRootLogger } from './root-logger.js';

/** The JSON lines a PinoNestLogger at `level` writes for what Nest logs at start and after. */
function linesAt(level: string, log: (logger: PinoNestLogger) => void): Record<string, unknown>[] {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  log(new PinoNestLogger(createRootLogger({ level, format: 'json' }, sink)));
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function nestStart(logger: PinoNestLogger): void {
  logger.log('Starting Nest application...', 'NestFactory');
  logger.log('AppModule dependencies initialized', 'InstanceLoader');
  logger.log('McpController {/mcp}:', 'RoutesResolver');
  logger.log('Mapped {/mcp, POST} route', 'RouterExplorer');
  logger.log('Nest application successfully started', 'NestApplication');
  logger.log('a line of the app', 'Kadu');
}

describe('PinoNestLogger', () => {
  it("at info: Nest's start-up inventory (modules, controllers, routes) is left out, every other line kept", () => {
    expect(linesAt('info', nestStart).map((l) => [l.level, l.context, l.msg])).toEqual([
      [30, 'NestFactory', 'Starting Nest application...'],
      [30, 'NestApplication', 'Nest application successfully started'],
      [30, 'Kadu', 'a line of the app'],
    ]);
  });

  it('at debug: the inventory is there, at debug, in order', () => {
    expect(linesAt('debug', nestStart).map((l) => [l.level, l.context, l.msg])).toEqual([
      [30, 'NestFactory', 'Starting Nest application...'],
      [20, 'InstanceLoader', 'AppModule dependencies initialized'],
      [20, 'RoutesResolver', 'McpController {/mcp}:'],
      [20, 'RouterExplorer', 'Mapped {/mcp, POST} route'],
      [30, 'NestApplication', 'Nest application successfully started'],
      [30, 'Kadu', 'a line of the app'],
    ]);
  });

  it('a warning or an error from those contexts keeps its level', () => {
    const lines = linesAt('info', (logger) => {
      logger.warn('a route declared twice', 'RouterExplorer');
      logger.error('a module failed', 'InstanceLoader');
    });
    expect(lines.map((l) => [l.level, l.context, l.msg])).toEqual([
      [40, 'RouterExplorer', 'a route declared twice'],
      [50, 'InstanceLoader', 'a module failed'],
    ]);
  });
});
