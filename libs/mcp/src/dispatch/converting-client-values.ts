import { BadRequestException } from '@nestjs/common';
import { withConvertibleValues } from '../protocol/index.js';
import { isThenable } from './thenable.js';

/**
 * A pipe's conversion of client values (class-transformer's `@Type(() => Number)`, a ParseIntPipe)
 * calls their `toString`/`valueOf`: for `[{"toString":false}]` that is a TypeError, which would be a
 * masked internal failure where a wrong value is a validation error (issue 34). The pipe then runs
 * again on the input with every such value replaced by NaN, which no type accepts: the answer is the
 * app's own validation error for that field, as for any other wrong value.
 */
export function convertingClientValues<T>(convert: (input: unknown) => T | Promise<T>, input: unknown): T | Promise<T> {
  // No async frame of its own (bench/RESULTS.md, w32perf §1): a value is passed on as it came, a
  // promise with its failure handled, and only a TypeError leads to the second run.
  let converted: T | Promise<T>;
  try {
    converted = convert(input);
  } catch (error) {
    return convertingAgain(convert, input, error);
  }
  if (!isThenable(converted)) return converted;
  return Promise.resolve(converted).then(undefined, (error: unknown) => convertingAgain(convert, input, error));
}

async function convertingAgain<T>(
  convert: (input: unknown) => T | Promise<T>,
  input: unknown,
  first: unknown,
): Promise<T> {
  if (!(first instanceof TypeError)) throw first;
  try {
    return await convert(withConvertibleValues(input));
  } catch (error) {
    if (error instanceof TypeError) {
      throw new BadRequestException(['an argument has a value that cannot be converted to its declared type']);
    }
    throw error;
  }
}
