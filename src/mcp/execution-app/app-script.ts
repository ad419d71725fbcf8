/**
 * The execution app's script, run inside the host's sandboxed iframe. It speaks the MCP Apps
 * bridge (JSON-RPC over postMessage with the host, SEP-1865): `ui/initialize`, then the host's
 * `ui/notifications/tool-result` names the execution; every later read and the Cancel are
 * `tools/call` requests the host runs as the caller, so the app holds no token and the
 * confirmation rules of kadu_executions_cancel hold as for any call (docs/kadu.md §The execution app).
 * Data is written with textContent only: step summaries and questions are data, never markup.
 * The script is ASCII (escapes in its strings): the production bundle must be (scripts/bundle.mjs).
 */
export const EXECUTION_APP_SCRIPT = String.raw`(() => {
  'use strict';
  const host = window.parent;
  const FINAL = ['succeeded', 'failed', 'canceled'];
  const CANCELABLE = ['queued', 'running', 'awaiting_input'];
  const STATUS_TEXT = { queued: 'Queued', running: 'Running', awaiting_input: 'Waiting for your input', succeeded: 'Succeeded', failed: 'Failed', canceled: 'Canceled' };
  const $ = (id) => document.getElementById(id);
  let nextId = 1;
  let executionId;
  let timer;
  let downloads = '';
  const pending = new Map();

  const send = (message) => host.postMessage(message, '*');
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      send({ jsonrpc: '2.0', id, method, params });
    });
  const notify = (method, params) => send({ jsonrpc: '2.0', method, params });

  window.addEventListener('message', (event) => {
    if (event.source !== host) return;
    const message = event.data;
    if (!message || message.jsonrpc !== '2.0') return;
    if (message.method === undefined) {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      if (message.error) waiting.reject(new Error(message.error.message || 'The host refused the request'));
      else waiting.resolve(message.result);
      return;
    }
    if (message.method === 'ui/notifications/tool-result') show(message.params);
    else if (message.method === 'ui/notifications/tool-cancelled') say('The call was cancelled before it answered.', 'warn');
    if (message.id === undefined) return;
    if (message.method === 'ping') send({ jsonrpc: '2.0', id: message.id, result: {} });
    else if (message.method === 'ui/resource-teardown') {
      clearTimeout(timer);
      send({ jsonrpc: '2.0', id: message.id, result: {} });
    } else send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
  });

  /** A tool through the host, as the person: the body of an isError result is the API's error. */
  async function tool(name, args) {
    const result = await request('tools/call', { name, arguments: args });
    const text = (result.content || []).find((c) => c.type === 'text');
    const body = result.structuredContent || (text ? JSON.parse(text.text) : undefined);
    return { ok: !result.isError, body };
  }

  function say(text, kind) {
    const notice = $('notice');
    notice.textContent = text;
    notice.className = 'notice' + (kind ? ' ' + kind : '');
    notice.hidden = !text;
  }

  const errorText = (body) => (body && body.errors && body.errors[0] ? body.errors[0].title + (body.errors[0].detail ? ': ' + body.errors[0].detail : '') : (body && body.error && body.error.message) || 'Kadu refused the request');

  function show(result) {
    const data = result && result.structuredContent && result.structuredContent.data;
    if (result && result.isError) return say(errorText(result.structuredContent || safeJson(result)), 'danger');
    if (!data || typeof data.id !== 'string') return say('This result does not describe an execution.', 'warn');
    executionId = data.id;
    render(data);
    refresh();
  }

  function safeJson(result) {
    try {
      return JSON.parse(((result.content || []).find((c) => c.type === 'text') || {}).text);
    } catch {
      return undefined;
    }
  }

  function render(execution) {
    $('id').textContent = execution.id;
    const status = $('status');
    status.textContent = STATUS_TEXT[execution.status] || execution.status;
    status.className = 'status s-' + execution.status;
    const spent = execution.cost.spent;
    const cap = execution.cost.cap;
    $('cost').textContent = spent + ' of ' + cap;
    const meter = $('meter');
    meter.max = Math.max(cap, 1);
    meter.value = Math.min(spent, meter.max);
    meter.setAttribute('aria-valuetext', spent + ' of ' + cap + ' cost units');
    $('cancel').hidden = !CANCELABLE.includes(execution.status);
    if (FINAL.includes(execution.status)) $('approve').hidden = true;
    renderQuestion(execution.status === 'awaiting_input' ? execution.question : null);
    renderError(execution.error);
    if (execution.status === 'succeeded') renderOutputs(execution.output_file_ids);
  }

  function renderQuestion(question) {
    const box = $('question');
    box.hidden = !question;
    const list = $('choices');
    list.replaceChildren();
    if (!question) return;
    $('question-text').textContent = typeof question.text === 'string' ? question.text : 'The task asks for input.';
    for (const choice of Array.isArray(question.choices) ? question.choices : []) {
      const item = document.createElement('li');
      const line = [choice.date, choice.description, choice.amount].filter((v) => v !== undefined).join(' \u00b7 ');
      item.textContent = 'Bank line ' + choice.bank_line + ': ' + line + ' \u2014 matches ' + (choice.candidates || []).join(', ');
      list.append(item);
    }
  }

  function renderError(error) {
    const box = $('error');
    box.hidden = !error;
    box.textContent = error ? error.code + ': ' + error.message : '';
  }

  async function renderOutputs(ids) {
    const key = ids.join(',');
    if (key === downloads) return;
    downloads = key;
    const list = $('files');
    list.replaceChildren();
    $('outputs').hidden = ids.length === 0;
    for (const fileId of ids) {
      const [file, link] = await Promise.all([tool('kadu_files_get', { file_id: fileId }), tool('kadu_files_download', { file_id: fileId })]);
      const item = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'link';
      button.textContent = 'Download ' + (file.ok ? file.body.data.name : fileId);
      if (link.ok) button.addEventListener('click', () => request('ui/open-link', { url: link.body.data.url }).catch(() => say('The host did not open the link.', 'warn')));
      else button.disabled = true;
      item.append(button);
      list.append(item);
    }
  }

  function renderSteps(steps) {
    const list = $('steps');
    list.replaceChildren();
    for (const step of steps) {
      const item = document.createElement('li');
      const kind = document.createElement('span');
      kind.className = 'tag';
      kind.textContent = step.kind;
      item.append(kind, document.createTextNode(step.summary));
      list.append(item);
    }
    $('no-steps').hidden = steps.length > 0;
  }

  async function refresh() {
    clearTimeout(timer);
    if (!executionId) return;
    try {
      const [got, steps] = await Promise.all([tool('kadu_executions_get', { execution_id: executionId }), tool('kadu_executions_steps_list', { execution_id: executionId, limit: 100 })]);
      if (!got.ok) return say(errorText(got.body), 'danger');
      render(got.body.data);
      if (steps.ok) renderSteps(steps.body.data);
      if (FINAL.includes(got.body.data.status)) return;
    } catch (error) {
      say('Could not refresh: ' + error.message, 'warn');
    }
    timer = setTimeout(refresh, 1000);
  }

  $('cancel').addEventListener('click', async () => {
    if (!executionId) return;
    $('cancel').disabled = true;
    try {
      const answer = await tool('kadu_executions_cancel', { execution_id: executionId });
      const error = answer.body && answer.body.error;
      if (answer.ok) {
        say('The execution is canceled.', 'ok');
        render(answer.body.data);
      } else if (error && (error.code === 'approval_required' || error.code === 'approval_pending')) {
        say('Kadu asks you to confirm the cancel on its approval page; then press Cancel again.', 'warn');
        const open = $('approve');
        open.hidden = false;
        open.onclick = () => request('ui/open-link', { url: error.approval_url }).catch(() => say('The host did not open the link: ' + error.approval_url, 'warn'));
      } else say(errorText(answer.body), 'danger');
    } catch (failure) {
      say('Could not cancel: ' + failure.message, 'danger');
    } finally {
      $('cancel').disabled = false;
      refresh();
    }
  });

  request('ui/initialize', { appInfo: { name: 'kadu-execution', version: '1.0.0' }, appCapabilities: {}, protocolVersion: '2026-01-26' })
    .then(() => notify('ui/notifications/initialized', {}))
    .catch((error) => say('The host did not start the app: ' + error.message, 'danger'));
})();`;
