import { parse } from 'csv-parse/sync';
import { AgentError } from './agent.js';

/** Parses a CSV file with a header row into records. */
export function readCsv(name: string, bytes: Buffer): Record<string, string>[] {
  try {
    return parse(bytes, { columns: true, skip_empty_lines: true, trim: true, bom: true }) as Record<string, string>[];
  } catch (error) {
    throw new AgentError('invalid_input_file', `${name} is not a valid CSV file: ${(error as Error).message}`);
  }
}

export function amountOf(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value.replace(/,/g, ''));
  return Number.isFinite(n) ? n : undefined;
}
