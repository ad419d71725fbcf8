import { stringField } from '@kobana/nest-mcp';
import type { ExecutionRow } from './execution.view.js';

/** The answer that leaves a reconcile line unmatched (the reconcile agent reads an unknown ledger id so). */
export const NO_MATCH = 'none';

/** One ambiguous bank line of a reconcile question: the ledger entries it may be. */
interface Choice {
  bank_line: number;
  date?: string;
  description?: string;
  amount?: number;
  candidates: string[];
}

/**
 * One question an awaiting execution asks, as a form of one field: a reconcile line (answered with
 * `ledger_id`) or, for any other kind, the whole answer as a JSON object (`answers`). The key
 * carries the question round, so no key repeats within the execution (tasks.md §Task Update Requests).
 */
export interface OpenQuestion {
  readonly key: string;
  readonly message: string;
  /** The JSON Schema of the form (one required string field). */
  readonly schema: Record<string, unknown>;
  /** The reconcile bank line it decides, if it is one. */
  readonly line?: number;
}

/** What a person answered to one open question: as an elicitation answers (accept with content, decline, cancel). */
export interface QuestionReply {
  readonly action: 'accept' | 'decline' | 'cancel';
  readonly content?: Record<string, unknown>;
}

/** What the replies amount to: the whole answer (the execution continues), or some lines decided (kept on it). */
export type ReplyOutcome =
  | { readonly kind: 'complete'; readonly answers: Record<string, unknown> }
  | { readonly kind: 'partial'; readonly answers: Record<string, unknown> };

/** The questions of an awaiting execution that are still unanswered; `rounds`: how many it asked so far. */
export function openQuestions(row: ExecutionRow, rounds: number): OpenQuestion[] {
  const decided = decisionsOf(row);
  const open = choicesOf(row).filter((c) => decided[String(c.bank_line)] === undefined);
  if (open.length) return open.map((c) => lineQuestion(c, rounds));
  const question = row.question as { text?: string; answer_format?: string } | null;
  const schema = {
    type: 'object',
    properties: {
      answers: {
        type: 'string',
        title: 'Answer',
        description: `A JSON object${question?.answer_format ? `: ${question.answer_format}` : ''}`,
      },
    },
    required: ['answers'],
  };
  return [{ key: `r${rounds}-answers`, message: question?.text ?? 'The execution needs an answer.', schema }];
}

function lineQuestion(c: Choice, rounds: number): OpenQuestion {
  const schema = {
    type: 'object',
    properties: {
      ledger_id: {
        type: 'string',
        title: 'Ledger entry',
        enum: [...c.candidates, NO_MATCH],
        description: `"${NO_MATCH}" leaves the line unmatched`,
      },
    },
    required: ['ledger_id'],
  };
  const line = [c.date, c.description, c.amount].filter((v) => v !== undefined && v !== '').join(', ');
  const message = `Bank line ${c.bank_line}${line ? ` (${line})` : ''} matches several ledger entries: ${c.candidates.join(', ')}. Which one is it?`;
  return { key: `r${rounds}-line-${c.bank_line}`, message, schema, line: c.bank_line };
}

/**
 * Folds replies into the execution's answers. Declining a line leaves it unmatched; a ledger id that
 * is not a string is no ledger line, "none of them" too (issue 34: never coerced). A whole answer that
 * parses as a JSON object completes at once. Once every line is decided the answers are complete.
 */
export function applyReplies(
  row: ExecutionRow,
  replies: ReadonlyArray<readonly [OpenQuestion, QuestionReply]>,
): ReplyOutcome {
  const decisions: Record<string, string> = { ...decisionsOf(row) };
  for (const [question, reply] of replies) {
    if (reply.action === 'cancel') continue;
    if (question.line !== undefined) {
      const ledgerId = reply.action === 'accept' ? stringField(reply.content, 'ledger_id') : undefined;
      decisions[String(question.line)] = ledgerId ?? NO_MATCH;
    } else if (reply.action === 'accept') {
      const parsed = parseObject(reply.content?.answers);
      if (parsed) return { kind: 'complete', answers: parsed };
    }
  }
  const merged = { ...(row.answers ?? {}), decisions };
  const choices = choicesOf(row);
  const outstanding = choices.filter((c) => decisions[String(c.bank_line)] === undefined);
  return { kind: choices.length && outstanding.length === 0 ? 'complete' : 'partial', answers: merged };
}

function choicesOf(row: ExecutionRow): Choice[] {
  const choices = (row.question as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices)) return [];
  return choices.filter(
    (c): c is Choice =>
      typeof c === 'object' &&
      c !== null &&
      Number.isInteger((c as Choice).bank_line) &&
      Array.isArray((c as Choice).candidates),
  );
}

function decisionsOf(row: ExecutionRow): Record<string, string> {
  const decisions = (row.answers as { decisions?: unknown } | null)?.decisions;
  if (!decisions || typeof decisions !== 'object') return {};
  return Object.fromEntries(Object.entries(decisions).filter(([, v]) => typeof v === 'string')) as Record<
    string,
    string
  >;
}

function parseObject(text: unknown): Record<string, unknown> | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
