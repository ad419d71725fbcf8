import request from 'supertest';
import type { Server } from 'node:http';

/** The path of an approval link, to drive it against the in-process server. */
export const approvalPath = (url: string): string => new URL(url).pathname;

/** Opens the approval page, reads its anti-CSRF token, and presses a button, as a person would. */
export async function decide(server: Server, url: string, decision: 'approve' | 'reject'): Promise<request.Response> {
  const page = await request(server).get(approvalPath(url));
  if (page.status !== 200) throw new Error(`approval page answered ${page.status}`);
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
  return request(server).post(approvalPath(url)).type('form').send({ csrf, decision });
}
