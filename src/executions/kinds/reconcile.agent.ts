import { type Agent, type AgentContext, AgentError, type AgentOutcome } from './agent.js';
import { amountOf, readCsv } from './csv.js';

/**
 * `reconcile`: matches a bank statement (date, description, amount) against a ledger (id, date,
 * description, amount) by amount and date. A bank line with several candidates is ambiguous: the
 * execution waits for input with a question, and `continue` supplies
 * `{"decisions": {"<bank line>": "<ledger id>"}}`. Costs 1 per bank line.
 */
export class ReconcileAgent implements Agent {
  // Deterministic, its only effects recorded steps and output files: resumes after an outage.
  readonly resumable = true;

  async run(context: AgentContext): Promise<AgentOutcome> {
    const [bankId, ledgerId] = context.inputFileIds;
    if (!bankId || !ledgerId)
      throw new AgentError(
        'input_file_required',
        'reconcile needs two input files: the bank statement, then the ledger',
      );
    const bankFile = await context.readFile(bankId);
    const ledgerFile = await context.readFile(ledgerId);
    const bank = readCsv(bankFile.name, bankFile.bytes).map((r, i) => ({
      line: i + 1,
      date: r.date ?? '',
      description: r.description ?? '',
      amount: req(amountOf(r.amount), bankFile.name, i + 1),
    }));
    const ledger = readCsv(ledgerFile.name, ledgerFile.bytes).map((r, i) => ({
      id: r.id ?? `row-${i + 1}`,
      date: r.date ?? '',
      description: r.description ?? '',
      amount: req(amountOf(r.amount), ledgerFile.name, i + 1),
    }));
    await context.step('read', `Read ${bank.length} bank lines and ${ledger.length} ledger entries`, 1);

    const decisions = readDecisions(context.answers);
    const used = new Set<string>();
    const matched: { bank_line: number; ledger_id: string; amount: number }[] = [];
    const ambiguous: { bank_line: number; date: string; description: string; amount: number; candidates: string[] }[] =
      [];
    for (const line of bank) {
      await context.step('match', `Matching bank line ${line.line}`, 1);
      const candidates = ledger.filter(
        (e) => !used.has(e.id) && e.amount === line.amount && (e.date === line.date || !line.date),
      );
      const decided = decisions[String(line.line)];
      const pick =
        decided !== undefined
          ? candidates.find((c) => c.id === decided)
          : candidates.length === 1
            ? candidates[0]
            : undefined;
      if (pick) {
        used.add(pick.id);
        matched.push({ bank_line: line.line, ledger_id: pick.id, amount: line.amount });
      } else if (candidates.length > 1 && decided === undefined) {
        ambiguous.push({
          bank_line: line.line,
          date: line.date,
          description: line.description,
          amount: line.amount,
          candidates: candidates.map((c) => c.id),
        });
      }
    }
    if (ambiguous.length) {
      await context.step('question', `${ambiguous.length} bank line(s) match several ledger entries`, 0);
      return {
        kind: 'awaiting_input',
        question: {
          text: 'Some bank lines match several ledger entries. Which entry does each line correspond to?',
          answer_format: '{"decisions": {"<bank_line>": "<ledger id>"}}',
          choices: ambiguous,
        },
      };
    }
    const unmatchedBank = bank.filter((l) => !matched.some((m) => m.bank_line === l.line)).map((l) => l.line);
    const unmatchedLedger = ledger.filter((e) => !used.has(e.id)).map((e) => e.id);
    const report =
      ['bank_line,ledger_id,amount', ...matched.map((m) => `${m.bank_line},${m.ledger_id},${m.amount}`)].join('\n') +
      '\n';
    const reportId = await context.writeFile('reconciliation.csv', 'text/csv', Buffer.from(report));
    await context.step('done', `Matched ${matched.length} of ${bank.length} bank lines`, 0);
    return {
      kind: 'succeeded',
      output: { matched, unmatched_bank_lines: unmatchedBank, unmatched_ledger_ids: unmatchedLedger },
      outputFileIds: [reportId],
    };
  }
}

function req(value: number | undefined, file: string, row: number): number {
  if (value === undefined) throw new AgentError('invalid_input_file', `${file} row ${row} has no numeric amount`);
  return value;
}

function readDecisions(answers: Record<string, unknown> | null): Record<string, string> {
  const decisions = answers?.decisions;
  if (!decisions || typeof decisions !== 'object') return {};
  return Object.fromEntries(
    Object.entries(decisions as Record<string, unknown>).filter(([, v]) => typeof v === 'string'),
  ) as Record<string, string>;
}
