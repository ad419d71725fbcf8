import { absoluteUrl, type EnvKind, flag, nonNegative, prefix, text, withRule } from '../schema/env-kinds.js';
import { Env } from '../schema/env-schema.js';
import { defineSlice } from '../schema/config-slice.js';

/** The S3 variables are read only with S3_BUCKET set: without it they are not checked either. */
const withBucket = <T>(kind: EnvKind<T>): EnvKind<T> => ({
  ...kind,
  check: (raw, name, env) => (env.S3_BUCKET ? kind.check?.(raw, name, env) : undefined),
});

const keyPair = withRule(text, (_raw, env) =>
  Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY)
    ? 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together'
    : undefined,
);

class FilesEnv {
  @Env(nonNegative, {
    default: '52428800',
    defaultText: '`52428800` (50 MiB)',
    meaning: 'largest upload accepted on a presigned URL (bytes)',
  })
  KADU_MAX_FILE_BYTES!: number;

  @Env(nonNegative, { default: '600', meaning: 'lifetime in seconds of upload URLs' })
  KADU_UPLOAD_URL_TTL!: number;

  @Env(nonNegative, { default: '300', meaning: 'lifetime in seconds of download URLs' })
  KADU_DOWNLOAD_URL_TTL!: number;

  @Env(text, {
    meaning: 'files in this S3-compatible bucket (the distributed topology) instead of `DATA_DIR`',
  })
  S3_BUCKET?: string;

  @Env(withBucket(absoluteUrl), { defaultText: 'AWS', meaning: 'where the bucket is' })
  S3_ENDPOINT?: string;

  @Env(withBucket(absoluteUrl), {
    defaultText: '`S3_ENDPOINT`',
    meaning:
      'the endpoint written into presigned URLs, when clients reach the store at another address than the replicas',
  })
  S3_PUBLIC_ENDPOINT?: string;

  @Env(text, { default: 'us-east-1', meaning: "the bucket's region" })
  S3_REGION!: string;

  @Env(withBucket(keyPair), {
    defaultText: "the AWS SDK's default chain",
    allowed: 'text (with `S3_SECRET_ACCESS_KEY`)',
    meaning: 'credentials for the bucket',
  })
  S3_ACCESS_KEY_ID?: string;

  @Env(text, { defaultText: "the AWS SDK's default chain", meaning: 'credentials for the bucket' })
  S3_SECRET_ACCESS_KEY?: string;

  @Env(flag, { default: 'false', meaning: '`true` for MinIO-style path URLs' })
  S3_FORCE_PATH_STYLE!: boolean;

  @Env(prefix, { defaultText: 'empty', meaning: 'key prefix in the bucket, so deployments can share one' })
  S3_PREFIX?: string;
}

export interface S3Config {
  readonly bucket: string;
  /** Absent: AWS S3 in `region`. */
  readonly endpoint?: string;
  /** The endpoint written into presigned URLs, when clients reach the store by another address. */
  readonly publicEndpoint?: string;
  readonly region: string;
  /** Absent: the SDK's default credential chain (AWS_* variables, instance role…). */
  readonly credentials?: { accessKeyId: string; secretAccessKey: string };
  readonly forcePathStyle: boolean;
  /** Key prefix inside the bucket (S3_PREFIX), so deployments can share a bucket. */
  readonly prefix: string;
}

export interface FilesConfig {
  /** Largest upload accepted on a presigned URL (KADU_MAX_FILE_BYTES, default 50 MiB). */
  readonly maxFileBytes: number;
  readonly uploadUrlTtlSeconds: number;
  readonly downloadUrlTtlSeconds: number;
  /** Files in an S3-compatible bucket (S3_BUCKET set) instead of the data folder. */
  readonly s3?: S3Config;
}

function s3Of(values: FilesEnv): S3Config | undefined {
  if (!values.S3_BUCKET) return undefined;
  const { S3_ACCESS_KEY_ID: accessKeyId, S3_SECRET_ACCESS_KEY: secretAccessKey } = values;
  return {
    bucket: values.S3_BUCKET,
    endpoint: values.S3_ENDPOINT,
    publicEndpoint: values.S3_PUBLIC_ENDPOINT,
    region: values.S3_REGION,
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    forcePathStyle: values.S3_FORCE_PATH_STYLE,
    prefix: values.S3_PREFIX ?? '',
  };
}

export const filesConfig = defineSlice(
  'files',
  FilesEnv,
  ['maxFileBytes', 'uploadUrlTtlSeconds', 'downloadUrlTtlSeconds', 's3'],
  (values): FilesConfig => ({
    maxFileBytes: values.KADU_MAX_FILE_BYTES,
    uploadUrlTtlSeconds: values.KADU_UPLOAD_URL_TTL,
    downloadUrlTtlSeconds: values.KADU_DOWNLOAD_URL_TTL,
    s3: s3Of(values),
  }),
);
