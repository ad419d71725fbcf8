import { Injectable } from '@nestjs/common';
import {
  InputRequests,
  McpArg,
  McpCompletion,
  McpInputs,
  McpPrompt,
  McpResource,
  McpResourceTemplate,
  type McpInputRound,
} from '@kobana/nest-mcp';
import { PNG } from './fixture-tools.service.js';

/** Resources, templates, prompts and completions the conformance scenarios read. */
@Injectable()
export class FixtureCatalogService {
  @McpResource({
    uri: 'test://static-text',
    name: 'static-text',
    title: 'Static text',
    description: 'A static text resource.',
    mimeType: 'text/plain',
  })
  staticText() {
    return 'This is the content of the static text resource.';
  }

  @McpResource({
    uri: 'test://static-binary',
    name: 'static-binary',
    description: 'A static binary resource.',
    mimeType: 'image/png',
  })
  staticBinary() {
    return Buffer.from(PNG, 'base64');
  }

  @McpResource({
    uri: 'test://watched-resource',
    name: 'watched-resource',
    description: 'A resource clients may subscribe to.',
    mimeType: 'text/plain',
  })
  watched() {
    return 'Watched resource content.';
  }

  @McpResourceTemplate({
    uriTemplate: 'test://template/{id}/data',
    name: 'template-data',
    description: 'Data by id.',
    mimeType: 'application/json',
  })
  template(@McpArg('id') id: string) {
    return { id, templateTest: true, data: `Data for ID: ${id}` };
  }

  @McpPrompt({ name: 'test_simple_prompt', description: 'A simple prompt without arguments.' })
  simple() {
    return 'This is a simple prompt for testing.';
  }

  @McpPrompt({
    name: 'test_prompt_with_arguments',
    description: 'A prompt with two required arguments.',
    arguments: [
      { name: 'arg1', description: 'First argument', required: true },
      { name: 'arg2', description: 'Second argument', required: true },
    ],
  })
  withArgs(@McpArg('arg1') arg1: string, @McpArg('arg2') arg2: string) {
    return `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`;
  }

  @McpCompletion({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: 'arg1' })
  completeArg1(@McpArg('value') value: string) {
    return ['paris', 'park', 'party', 'test', 'testing'].filter((v) => v.startsWith(value));
  }

  @McpPrompt({
    name: 'test_prompt_with_embedded_resource',
    description: 'A prompt that embeds a resource.',
    arguments: [{ name: 'resourceUri', description: 'The resource to embed', required: true }],
  })
  embedded(@McpArg('resourceUri') uri: string) {
    return [
      {
        role: 'user' as const,
        content: {
          type: 'resource',
          resource: { uri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
        },
      },
      { role: 'user' as const, content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ];
  }

  @McpPrompt({ name: 'test_prompt_with_image', description: 'A prompt with an image.' })
  image() {
    return [
      { role: 'user' as const, content: { type: 'image', data: PNG, mimeType: 'image/png' } },
      { role: 'user' as const, content: { type: 'text', text: 'Please analyze the image above.' } },
    ];
  }

  @McpPrompt({ name: 'test_input_required_result_prompt', description: 'Needs context from the client first.' })
  needsContext(@McpInputs() inputs: McpInputRound) {
    const answer = inputs.elicitation('user_context');
    if (answer?.action === 'accept') return `Use this context: ${JSON.stringify(answer.content)}`;
    if (!inputs.available) return 'No context available in this protocol era.';
    inputs.require({
      user_context: InputRequests.form('Provide context', {
        type: 'object',
        properties: { context: { type: 'string' } },
      }),
    });
  }
}
