import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from '@20minutes/s3rver';
import { DeleteObjectCommand, S3Client } from '@aws-sdk/client-s3';

// The SDK warns once per process that its releases after January 2027 will want Node 22; the project is pinned to 20.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export const S3_TEST_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface S3TestServer {
  readonly endpoint: string;
  readonly bucket: string;
  /** An SDK client on the same bucket, to look at or damage what the app stored. */
  readonly client: S3Client;
  /** Kadu's S3_* variables for this server, under a fresh key prefix unless one is given. */
  env(prefix?: string): Record<string, string>;
  deleteObject(key: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * An S3-compatible server on an ephemeral loopback port, in this process (@20minutes/s3rver: it
 * checks SigV4 signatures and expiry of presigned URLs like S3 does). Its bucket is created at
 * start, the way an operator creates the deployment's bucket.
 */
export async function startS3Server(bucket = 'kadu-test'): Promise<S3TestServer> {
  const directory = mkdtempSync(join(tmpdir(), 'kadu-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: S3_TEST_CREDENTIALS,
  });
  return {
    endpoint,
    bucket,
    client,
    env: (prefix = `t-${randomBytes(6).toString('hex')}/`) => s3Env(endpoint, bucket, prefix),
    deleteObject: async (key) => void (await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }))),
    close: async () => {
      client.destroy();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

export function s3Env(endpoint: string, bucket: string, prefix: string): Record<string, string> {
  return {
    S3_ENDPOINT: endpoint,
    S3_BUCKET: bucket,
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: S3_TEST_CREDENTIALS.accessKeyId,
    S3_SECRET_ACCESS_KEY: S3_TEST_CREDENTIALS.secretAccessKey,
    S3_FORCE_PATH_STYLE: 'true',
    S3_PREFIX: prefix,
  };
}
