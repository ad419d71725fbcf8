import { Injectable } from '@nestjs/common';
import {
  InputRequests,
  JSONSchema,
  McpArg,
  McpInputs,
  McpTool,
  McpToolResult,
  type McpInputRound,
} from '@kobana/nest-mcp';
import { IsString } from 'class-validator';

export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=';
const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const ANY = { type: 'object', properties: {} };

// The JSON Schema 2020-12 tool's schema, as the suite expects it back verbatim.
const SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

/** The tools the conformance scenarios call, on a plain service; names and behaviours fixed by the suite. */
@Injectable()
export class FixtureToolsService {
  @McpTool({ name: 'test_simple_text', description: 'Returns a simple text response.' })
  simpleText() {
    return McpToolResult.text('This is a simple text response for testing.');
  }

  @McpTool({ name: 'test_image_content', description: 'Returns an image.' })
  image() {
    return new McpToolResult([{ type: 'image', data: PNG, mimeType: 'image/png' }]);
  }

  @McpTool({ name: 'test_audio_content', description: 'Returns audio.' })
  audio() {
    return new McpToolResult([{ type: 'audio', data: WAV, mimeType: 'audio/wav' }]);
  }

  @McpTool({ name: 'test_embedded_resource', description: 'Returns an embedded resource.' })
  embedded() {
    return new McpToolResult([
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ]);
  }

  @McpTool({ name: 'test_multiple_content_types', description: 'Returns text, an image and a resource.' })
  mixed() {
    return new McpToolResult([
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: {
          uri: 'test://mixed-content-resource',
          mimeType: 'application/json',
          text: '{"test":"data","value":123}',
        },
      },
    ]);
  }

  @McpTool({ name: 'test_error_handling', description: 'Always fails as a tool error.' })
  error() {
    return McpToolResult.error('This tool intentionally returns an error for testing');
  }

  @McpTool({ name: 'test_tool_with_progress', description: 'Would report progress (needs a server stream).' })
  progress() {
    return McpToolResult.text(
      'Done (progress notifications need a server-to-client stream, which this stateless server does not open).',
    );
  }

  @McpTool({ name: 'test_tool_with_logging', description: 'Would log (needs a server stream).' })
  logging() {
    return McpToolResult.text('Done (log notifications need a server-to-client stream).');
  }

  @McpTool({ name: 'test_logging_tool', description: 'Plain result, no log without a logLevel.' })
  loggingTool() {
    return McpToolResult.text('logged nothing');
  }

  @McpTool({ name: 'test_sampling', description: 'Would sample over a server stream (2025).' })
  sampling(@McpArg('prompt', { validators: [IsString()] }) prompt: string) {
    return McpToolResult.error(
      `Server-initiated sampling needs a server-to-client stream; not available for "${prompt}".`,
    );
  }

  @McpTool({ name: 'test_elicitation', description: 'Would elicit over a server stream (2025).' })
  elicitation(@McpArg('message', { validators: [IsString()] }) message: string) {
    return McpToolResult.error(
      `Server-initiated elicitation needs a server-to-client stream; not available for "${message}".`,
    );
  }

  @McpTool({
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features.',
    rawInputSchema: SCHEMA_2020_12,
  })
  schema2020() {
    return McpToolResult.text('ok');
  }

  @McpTool({ name: 'test_header_param', description: 'Mirrors its region argument in an Mcp-Param-Region header.' })
  headerParam(
    @McpArg('region', { validators: [IsString(), JSONSchema({ 'x-mcp-header': 'Region' }) as PropertyDecorator] })
    region: string,
  ) {
    return McpToolResult.text(`region ${region}`);
  }

  @McpTool({ name: 'test_missing_capability', description: 'Needs the sampling capability.' })
  missingCapability(@McpInputs() inputs: McpInputRound) {
    if (inputs.available && !inputs.can('sampling')) {
      inputs.require({
        sample: InputRequests.sampling({
          messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
          maxTokens: 10,
        }),
      });
    }
    return McpToolResult.text('sampling capability present');
  }

  @McpTool({ name: 'test_streaming_elicitation', description: 'Asks through input_required, never on a stream.' })
  streamingElicitation(@McpInputs() inputs: McpInputRound) {
    const answer = inputs.elicitation('user_name', NAME);
    if (answer || !inputs.can('form')) return McpToolResult.text('done');
    inputs.require({ user_name: InputRequests.form('What is your name?', NAME) });
  }

  @McpTool({ name: 'test_input_required_result_elicitation', description: 'Elicits a name (no requestState needed).' })
  irElicitation(@McpInputs() inputs: McpInputRound) {
    const answer = inputs.elicitation('user_name', NAME);
    if (answer?.action === 'accept') return McpToolResult.text(`Hello, ${String(answer.content?.name)}!`);
    if (answer) return McpToolResult.text('No name given.');
    inputs.require({ user_name: InputRequests.form('Please provide your name', NAME) });
  }

  @McpTool({ name: 'test_input_required_result_sampling', description: 'Asks the client to sample.' })
  irSampling(@McpInputs() inputs: McpInputRound) {
    const answer = inputs.sampling('sample_request');
    if (answer) return McpToolResult.text(`The model said: ${JSON.stringify(answer.content)}`);
    inputs.require({
      sample_request: InputRequests.sampling({
        messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
        maxTokens: 100,
      }),
    });
  }

  @McpTool({ name: 'test_input_required_result_list_roots', description: "Asks for the client's roots." })
  irRoots(@McpInputs() inputs: McpInputRound) {
    const roots = inputs.roots('roots_request');
    if (roots) return McpToolResult.text(`Roots: ${roots.map((r) => r.uri).join(', ')}`);
    inputs.require({ roots_request: InputRequests.roots() });
  }

  @McpTool({ name: 'test_input_required_result_request_state', description: 'Round-trips its own state.' })
  irRequestState(@McpInputs() inputs: McpInputRound) {
    const state = inputs.state as { asked?: boolean } | undefined;
    const answer = inputs.elicitation('confirm');
    if (state?.asked && answer) return McpToolResult.text('state-ok');
    inputs.require(
      { confirm: InputRequests.form('Confirm?', { type: 'object', properties: { ok: { type: 'boolean' } } }) },
      { asked: true },
    );
  }

  @McpTool({ name: 'test_input_required_result_multiple_inputs', description: 'Asks for several inputs at once.' })
  irMultiple(@McpInputs() inputs: McpInputRound) {
    const name = inputs.elicitation('user_name', NAME);
    const greeting = inputs.sampling('greeting');
    const roots = inputs.roots('client_roots');
    if (name && greeting && roots) return McpToolResult.text(`All inputs received (${roots.length} roots).`);
    inputs.require(
      {
        user_name: InputRequests.form('Your name?', NAME),
        greeting: InputRequests.sampling({
          messages: [{ role: 'user', content: { type: 'text', text: 'Write a greeting' } }],
          maxTokens: 50,
        }),
        client_roots: InputRequests.roots(),
      },
      { round: 1 },
    );
  }

  @McpTool({ name: 'test_input_required_result_multi_round', description: 'Two rounds of questions.' })
  irMultiRound(@McpInputs() inputs: McpInputRound) {
    const state = inputs.state as { step?: number; name?: string } | undefined;
    if (state?.step === 1) {
      const first = inputs.elicitation('step1', NAME);
      if (first?.action === 'accept')
        inputs.require({ step2: InputRequests.form('Favourite colour?', ANY) }, { step: 2, name: first.content?.name });
    }
    if (state?.step === 2 && inputs.elicitation('step2')?.action === 'accept')
      return McpToolResult.text(`Thanks, ${state.name ?? 'friend'}.`);
    inputs.require({ step1: InputRequests.form('Your name?', NAME) }, { step: 1 });
  }

  @McpTool({ name: 'test_input_required_result_tampered_state', description: 'Refuses a tampered requestState.' })
  irTampered(@McpInputs() inputs: McpInputRound) {
    if (inputs.state && inputs.elicitation('confirm')) return McpToolResult.text('state verified');
    inputs.require({ confirm: InputRequests.form('Confirm?', ANY) }, { issued: true });
  }

  @McpTool({ name: 'test_input_required_result_capabilities', description: 'Asks only what the client declared.' })
  irCapabilities(@McpInputs() inputs: McpInputRound) {
    if (inputs.elicitation('user_name') || inputs.sampling('sample_request') || inputs.roots('roots_request'))
      return McpToolResult.text('answered');
    if (inputs.can('form')) inputs.require({ user_name: InputRequests.form('Your name?', NAME) });
    if (inputs.can('sampling'))
      inputs.require({
        sample_request: InputRequests.sampling({
          messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }],
          maxTokens: 10,
        }),
      });
    if (inputs.can('roots')) inputs.require({ roots_request: InputRequests.roots() });
    return McpToolResult.text('No input capability declared.');
  }
}
