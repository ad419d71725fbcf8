/** Lower-case hex digits by value: a byte is written as text by two lookups (`>> 4`, `& 15`). */
export const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
