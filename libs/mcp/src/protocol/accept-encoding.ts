/**
 * `Accept-Encoding` negotiation for the one coding the endpoint can send, gzip (RFC 9110 §12.5.3).
 *
 *   Accept-Encoding = #( codings [ weight ] )      codings = content-coding / "identity" / "*"
 *   weight = OWS ";" OWS "q=" qvalue               qvalue  = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
 *
 * Codings and the `q` name are case-insensitive; `x-gzip` is gzip (RFC 9110 §8.4.1.3). gzip is
 * chosen when its weight (its own entry, else `*`'s) is above 0 and not below an explicit
 * `identity` entry's. A header that does not parse is read as no preference: identity, never an
 * error, since the answer in identity is always correct.
 */
/** The codings an answer of the endpoint goes out in. */
export type ContentCoding = 'gzip' | 'identity';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  let gzip: number | undefined;
  let star: number | undefined;
  let identity: number | undefined;
  for (const element of header.split(',')) {
    // Empty list elements are allowed and ignored (RFC 9110 §5.6.1).
    if (element.trim() === '') continue;
    const [coding, ...params] = element.split(';').map((part) => part.trim());
    if (!coding || !TOKEN.test(coding) || params.length > 1) return false;
    let weight = 1;
    if (params.length === 1) {
      const [name, value, extra] = params[0]!.split('=');
      if (extra !== undefined || name?.toLowerCase() !== 'q' || value === undefined || !QVALUE.test(value)) {
        return false;
      }
      weight = Number(value);
    }
    const name = coding.toLowerCase();
    // A coding listed twice keeps its highest weight: the client said it accepts it at least once.
    if (name === 'gzip' || name === 'x-gzip') gzip = Math.max(gzip ?? 0, weight);
    else if (name === '*') star = Math.max(star ?? 0, weight);
    else if (name === 'identity') identity = Math.max(identity ?? 0, weight);
  }
  const gzipWeight = gzip ?? star ?? 0;
  return gzipWeight > 0 && gzipWeight >= (identity ?? 0);
}
