import { type Agent, type AgentContext, AgentError, type AgentOutcome } from './agent.js';
import { amountOf, readCsv } from './csv.js';

/**
 * `csv_summary`: totals of the numeric columns of one input CSV. Costs 1 per row, so a cap below
 * the row count stops the execution at the cap. Writes the summary as an output file.
 */
export class CsvSummaryAgent implements Agent {
  // Deterministic, its only effects recorded steps and output files: resumes after an outage.
  readonly resumable = true;

  async run(context: AgentContext): Promise<AgentOutcome> {
    const [fileId] = context.inputFileIds;
    if (!fileId) throw new AgentError('input_file_required', 'csv_summary needs one input file (input_file_ids)');
    const file = await context.readFile(fileId);
    const rows = readCsv(file.name, file.bytes);
    await context.step('read', `Read ${rows.length} rows from ${file.name}`, 1);
    const columns = rows.length ? Object.keys(rows[0]!) : [];
    const totals: Record<string, number> = {};
    for (const [index, row] of rows.entries()) {
      await context.step('row', `Row ${index + 1}`, 1);
      for (const column of columns) {
        const n = amountOf(row[column]);
        if (n !== undefined) totals[column] = round((totals[column] ?? 0) + n);
      }
    }
    const summary = { source_file_id: fileId, rows: rows.length, columns, totals };
    const outputId = await context.writeFile(
      `${file.name.replace(/\.csv$/i, '')}-summary.json`,
      'application/json',
      Buffer.from(JSON.stringify(summary, null, 2)),
    );
    await context.step('write', 'Wrote the summary file', 0);
    return { kind: 'succeeded', output: summary, outputFileIds: [outputId] };
  }
}

const round = (n: number): number => Math.round(n * 100) / 100;
