/** RFC 6750 §3 challenge parameters; values are quoted, with quotes and backslashes escaped. */
export interface BearerChallenge {
  resourceMetadata?: string;
  error?: 'invalid_token' | 'insufficient_scope' | 'invalid_request';
  errorDescription?: string;
  scope?: string;
}

const quote = (value: string): string => `"${value.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\r\n]/g, ' ')}"`;

export function formatBearerChallenge(challenge: BearerChallenge): string {
  const params: string[] = [];
  if (challenge.error) params.push(`error=${quote(challenge.error)}`);
  if (challenge.errorDescription) params.push(`error_description=${quote(challenge.errorDescription)}`);
  if (challenge.scope) params.push(`scope=${quote(challenge.scope)}`);
  if (challenge.resourceMetadata) params.push(`resource_metadata=${quote(challenge.resourceMetadata)}`);
  return params.length ? `Bearer ${params.join(', ')}` : 'Bearer';
}

/** RFC 9728 §3.1: the metadata of resource `<base>/<path>` lives at `<base>/.well-known/oauth-protected-resource/<path>`. */
export function protectedResourceMetadataUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/.well-known/oauth-protected-resource/${path.replace(/^\/+/, '')}`;
}

export function canonicalResourceUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
