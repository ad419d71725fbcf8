import type { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import express from 'express';
import { endpointPaths, expressAppOf } from './endpoint-paths.js';

const withPrefix = (prefix: string) => ({ getGlobalPrefix: () => prefix }) as unknown as ApplicationConfig;

describe('the endpoint paths the body-parser exemption and the route hoist act on', () => {
  it('are the path alone without a global prefix, and the prefixed path too with one (slashes trimmed)', () => {
    expect(endpointPaths('mcp', undefined)).toEqual(['/mcp']);
    expect(endpointPaths('mcp', withPrefix(''))).toEqual(['/mcp']);
    expect(endpointPaths('mcp', withPrefix('/'))).toEqual(['/mcp']);
    expect(endpointPaths('mcp', withPrefix('/api/v1/'))).toEqual(['/mcp', '/api/v1/mcp']);
  });

  it('find an Express app behind the adapter, and nothing on another platform or without a server', () => {
    const app = express();
    expect(expressAppOf({ httpAdapter: { getInstance: () => app } } as unknown as HttpAdapterHost)).toBe(app);
    expect(
      expressAppOf({ httpAdapter: { getInstance: () => ({ register() {} }) } } as unknown as HttpAdapterHost),
    ).toBeUndefined();
    expect(expressAppOf({ httpAdapter: undefined } as unknown as HttpAdapterHost)).toBeUndefined();
  });
});
