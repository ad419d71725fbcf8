import { Bool, EnvelopeOf, Int, Nested, NullableTime, PageOf, Text, Time } from '../common/response-fields.js';

/** A secret's metadata: the value never passes through the API or a tool. */
export class SecretResponse {
  @Text()
  id: string;

  @Text()
  name: string;

  @Text()
  description: string;

  @Int({ description: 'How many values it has had' })
  version: number;

  @Bool()
  has_value: boolean;

  @NullableTime()
  rotated_at: string | null;

  @Time()
  created_at: string;

  @Time()
  updated_at: string;
}

/** A secret and the single-use page where a person types its value. */
export class SecretEntryResponse {
  @Nested(() => SecretResponse)
  secret: SecretResponse;

  @Text('Open it in a browser to type the value; single use')
  entry_url: string;

  @Time()
  entry_expires_at: string;
}

export const SecretEnvelope = EnvelopeOf(SecretResponse, 'SecretEnvelope');
export const SecretPage = PageOf(SecretResponse, 'SecretPage');
export const SecretEntryEnvelope = EnvelopeOf(SecretEntryResponse, 'SecretEntryEnvelope');
