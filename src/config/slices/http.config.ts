import { absoluteUrl, type EnvKind, port, prefix } from '../schema/env-kinds.js';
import { Env } from '../schema/env-schema.js';
import { defineSlice } from '../schema/config-slice.js';

/** The URL clients use, without trailing slashes; by default this machine on PORT. */
export function publicBaseUrlOf(env: NodeJS.ProcessEnv): string {
  const listening = port.check!(env.PORT, 'PORT', env) ? 3000 : (port.parse(env.PORT) ?? 3000);
  return (env.PUBLIC_BASE_URL ?? `http://localhost:${listening}`).replace(/\/+$/, '');
}

/** Checked as the app will use it: trailing slashes dropped. */
const baseUrl: EnvKind<string> = {
  allowed: absoluteUrl.allowed,
  check: (raw, name, env) => {
    const url = publicBaseUrlOf(env);
    return raw === undefined || URL.canParse(url) ? undefined : `${name} must be an absolute URL, got '${url}'`;
  },
  parse: (raw) => raw,
};

class HttpEnv {
  @Env(port, { default: '3000', meaning: 'HTTP port' })
  PORT!: number;

  @Env(prefix, { default: '127.0.0.1', allowed: 'host name or address', meaning: 'interface to listen on' })
  HOST!: string;

  @Env(baseUrl, {
    defaultText: '`http://localhost:$PORT`',
    meaning: 'the URL clients use; the MCP audience is `<base>/mcp`, the API audience `<base>/api/v1`',
  })
  PUBLIC_BASE_URL?: string;
}

export interface HttpConfig {
  readonly port: number;
  readonly host: string;
  readonly publicBaseUrl: string;
  /** Largest JSON body, REST and MCP (not a setting: uploads go to presigned URLs). */
  readonly bodyLimit: number;
}

export const httpConfig = defineSlice(
  'http',
  HttpEnv,
  ['port', 'host', 'publicBaseUrl', 'bodyLimit'],
  (values, env): HttpConfig => ({
    port: values.PORT,
    host: values.HOST,
    publicBaseUrl: publicBaseUrlOf(env),
    bodyLimit: 1_048_576,
  }),
);
