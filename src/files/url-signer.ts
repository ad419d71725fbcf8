import { createHmac, timingSafeEqual } from 'node:crypto';

export type SignedPurpose = 'upload' | 'download';

/**
 * Presigned URLs: the MAC binds purpose, org, file and expiry, so a URL opens exactly one object
 * for one action until it expires; editing any part of it breaks the signature.
 */
export class UrlSigner {
  constructor(private readonly key: Buffer) {}

  sign(purpose: SignedPurpose, orgId: string, fileId: string, expiresAt: Date): string {
    const expires = Math.floor(expiresAt.getTime() / 1000);
    return `org=${orgId}&expires=${expires}&sig=${this.mac(purpose, orgId, fileId, expires)}`;
  }

  verify(
    purpose: SignedPurpose,
    fileId: string,
    query: Record<string, unknown>,
  ): { orgId: string } | 'expired' | 'invalid' {
    const { org, expires, sig } = query;
    if (
      typeof org !== 'string' ||
      typeof expires !== 'string' ||
      typeof sig !== 'string' ||
      !/^\d{1,12}$/.test(expires)
    )
      return 'invalid';
    const expected = Buffer.from(this.mac(purpose, org, fileId, Number(expires)), 'base64url');
    const given = Buffer.from(sig, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    if (Number(expires) * 1000 < Date.now()) return 'expired';
    return { orgId: org };
  }

  private mac(purpose: SignedPurpose, orgId: string, fileId: string, expires: number): string {
    return createHmac('sha256', this.key)
      .update(`kadu-file\0${purpose}\0${orgId}\0${fileId}\0${expires}`)
      .digest('base64url');
  }
}
