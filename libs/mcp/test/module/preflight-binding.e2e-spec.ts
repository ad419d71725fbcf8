import { Injectable, Module, NotFoundException } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request from 'supertest';
import { McpArg, McpCaller, McpModule, McpTool } from '@kobana/nest-mcp';
import { legacyRequest, modernRequest } from '@kobana/nest-mcp/testing';
import { expectRpcResult } from '../support/wire.js';

/**
 * Issue 28, point 4: a preflight is called with its tool's parameters. It may repeat the tool's
 * parameter decorators or have none (it inherits the tool's binding); anything else stops the app
 * at bootstrap with a message that says "preflight" and names both methods.
 * The preflight is given as the method itself (`Service.prototype.get`, checked by the compiler)
 * or, deprecated, by its name.
 */
async function boot(provider: unknown) {
  @Module({
    imports: [
      McpModule.forRoot({
        serverInfo: { name: 't', version: '1' },
        principal: () => ({ subject: 'ana', scopes: [] }),
        destructiveTools: 'run',
      }),
    ],
    providers: [provider as never],
  })
  class AppModule {}
  const app = await NestFactory.create(AppModule, { logger: false, abortOnError: false });
  await app.init();
  return app;
}

async function bootError(provider: unknown): Promise<string> {
  try {
    const app = await boot(provider);
    await app.close();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the app started');
}

const DESTRUCTIVE = { annotations: { destructiveHint: true } };

@Injectable()
class SameDecorators {
  checked: string[] = [];
  @McpTool({ name: 'notes_delete', description: 'x', ...DESTRUCTIVE, preflight: 'get' })
  delete(@McpCaller('subject') ownerId: string, @McpArg('id') id: string) {
    return { deleted: `${ownerId}/${id}` };
  }

  get(@McpCaller('subject') ownerId: string, @McpArg('id') id: string) {
    if (id === 'missing') throw new NotFoundException({ error: 'not_found' });
    this.checked.push(`${ownerId}/${id}`);
  }
}

@Injectable()
class OtherDecorators {
  @McpTool({ name: 'notes_delete', description: 'x', ...DESTRUCTIVE, preflight: 'get' })
  delete(@McpCaller('subject') ownerId: string, @McpArg('id') id: string) {
    return { deleted: `${ownerId}/${id}` };
  }

  get(@McpArg('id') id: string) {
    return id;
  }
}

@Injectable()
class FirstParameters {
  @McpTool({ name: 'notes_delete', description: 'x', ...DESTRUCTIVE, preflight: 'get' })
  delete(@McpCaller('subject') ownerId: string, @McpArg('id') id: string, @McpArg('reason') reason: string) {
    return { deleted: `${ownerId}/${id}`, reason };
  }

  get(@McpCaller('subject') ownerId: string, @McpArg('id') id: string) {
    return `${ownerId}/${id}`;
  }
}

@Injectable()
class TooManyParameters {
  @McpTool({ name: 'notes_delete', description: 'x', ...DESTRUCTIVE, preflight: 'get' })
  delete(@McpArg('id') id: string) {
    return { deleted: id };
  }

  get(id: string, ownerId: string) {
    return [id, ownerId];
  }
}

/** The same as SameDecorators, the preflight given as the method itself (the form the compiler checks). */
@Injectable()
class ByReference {
  checked: string[] = [];
  @McpTool({ name: 'notes_delete', description: 'x', ...DESTRUCTIVE, preflight: ByReference.prototype.get })
  delete(@McpCaller('subject') ownerId: string, @McpArg('id') id: string) {
    return { deleted: `${ownerId}/${id}` };
  }

  get(@McpCaller('subject') ownerId: string, @McpArg('id') id: string) {
    if (id === 'missing') throw new NotFoundException({ error: 'not_found' });
    this.checked.push(`${ownerId}/${id}`);
  }
}

/** A base class's method is the provider's method too. */
class NotesBase {
  exists(ownerId: string, id: string) {
    if (id === 'missing') throw new NotFoundException({ error: 'not_found' });
    return `${ownerId}/${id}`;
  }
}

@Injectable()
class InheritedReference extends NotesBase {
  @McpTool({ name: 'notes_delete', description: 'x', ...DESTRUCTIVE, preflight: NotesBase.prototype.exists })
  delete(@McpCaller('subject') ownerId: string, @McpArg('id') id: string) {
    return { deleted: `${ownerId}/${id}` };
  }
}

function elsewhere(ownerId: string, id: string) {
  return [ownerId, id];
}

@Injectable()
class ForeignReference {
  @McpTool({ name: 'notes_delete', description: 'x', ...DESTRUCTIVE, preflight: elsewhere })
  delete(@McpCaller('subject') ownerId: string, @McpArg('id') id: string) {
    return { deleted: `${ownerId}/${id}` };
  }
}

@Injectable()
class OtherDecoratorsByReference {
  @McpTool({
    name: 'notes_delete',
    description: 'x',
    ...DESTRUCTIVE,
    preflight: OtherDecoratorsByReference.prototype.get,
  })
  delete(@McpCaller('subject') ownerId: string, @McpArg('id') id: string) {
    return { deleted: `${ownerId}/${id}` };
  }

  get(@McpArg('id') id: string) {
    return id;
  }
}

/** Compile-time only: a preflight whose parameters are not the tool's first ones is a type error. */
class MismatchedTypes {
  // @ts-expect-error -- the tool's first parameter is a string, the preflight's a number.
  @McpTool({ name: 'notes_delete', description: 'x', ...DESTRUCTIVE, preflight: MismatchedTypes.prototype.check })
  delete(ownerId: string, id: string) {
    return [ownerId, id];
  }

  check(count: number) {
    return count;
  }
}
void MismatchedTypes;

describe('preflight bindings', () => {
  it.each([
    ['2026-07-28', modernRequest],
    ['2025', legacyRequest],
  ])("one with the tool's own decorators boots and gets the tool's parameters (%s)", async (_era, build) => {
    const app = await boot(SameDecorators);
    try {
      const r = build('tools/call', { name: 'notes_delete', arguments: { id: 'n1' } }, { id: 1 });
      const result = expectRpcResult(await request(app.getHttpServer()).post('/mcp').set(r.headers).send(r.body), 1);
      expect(result.content).toEqual([{ type: 'text', text: '{"deleted":"ana/n1"}' }]);
      expect(app.get(SameDecorators).checked).toEqual(['ana/n1']);
      const missing = build('tools/call', { name: 'notes_delete', arguments: { id: 'missing' } }, { id: 2 });
      const refused = expectRpcResult(
        await request(app.getHttpServer()).post('/mcp').set(missing.headers).send(missing.body),
        2,
      );
      expect(refused).toMatchObject({ isError: true, content: [{ type: 'text', text: '{"error":"not_found"}' }] });
    } finally {
      await app.close();
    }
  });

  it('one with other decorators stops the app, saying preflight and naming both methods', async () => {
    expect(await bootError(OtherDecorators)).toBe(
      "preflight OtherDecorators.get of tool 'notes_delete' (OtherDecorators.delete) binds parameter #1 as @McpArg('id'), " +
        "the tool as @McpCaller('subject'): a preflight is called with its tool's parameters, so give it the tool's parameter decorators or none",
    );
  });

  it("one that takes the tool's first parameters, decorated alike, boots", async () => {
    const app = await boot(FirstParameters);
    await app.close();
  });

  it('one without decorators that takes more parameters than the tool binds stops the app', async () => {
    expect(await bootError(TooManyParameters)).toBe(
      "preflight TooManyParameters.get of tool 'notes_delete' (TooManyParameters.delete) takes 2 parameters but the tool binds 1: " +
        "a preflight is called with its tool's parameters",
    );
  });
  it.each([
    ['2026-07-28', modernRequest],
    ['2025', legacyRequest],
  ])("one given as the method itself runs with the tool's parameters before the tool (%s)", async (_era, build) => {
    const app = await boot(ByReference);
    try {
      const r = build('tools/call', { name: 'notes_delete', arguments: { id: 'n1' } }, { id: 1 });
      const result = expectRpcResult(await request(app.getHttpServer()).post('/mcp').set(r.headers).send(r.body), 1);
      expect(result.content).toEqual([{ type: 'text', text: '{"deleted":"ana/n1"}' }]);
      expect(app.get(ByReference).checked).toEqual(['ana/n1']);
      const missing = build('tools/call', { name: 'notes_delete', arguments: { id: 'missing' } }, { id: 2 });
      const refused = expectRpcResult(
        await request(app.getHttpServer()).post('/mcp').set(missing.headers).send(missing.body),
        2,
      );
      expect(refused).toMatchObject({ isError: true, content: [{ type: 'text', text: '{"error":"not_found"}' }] });
    } finally {
      await app.close();
    }
  });

  it("one given as a base class's method refuses what it does not find", async () => {
    const app = await boot(InheritedReference);
    try {
      const r = modernRequest('tools/call', { name: 'notes_delete', arguments: { id: 'missing' } }, { id: 1 });
      const refused = expectRpcResult(await request(app.getHttpServer()).post('/mcp').set(r.headers).send(r.body), 1);
      expect(refused).toMatchObject({ isError: true, content: [{ type: 'text', text: '{"error":"not_found"}' }] });
    } finally {
      await app.close();
    }
  });

  it('a function that is not a method of the provider stops the app, naming it', async () => {
    expect(await bootError(ForeignReference)).toBe(
      "@McpTool 'notes_delete' on ForeignReference.delete: preflight elsewhere is not a method of the same provider (ForeignReference)",
    );
  });

  it('a method given by reference with other decorators stops the app as the name form does', async () => {
    expect(await bootError(OtherDecoratorsByReference)).toBe(
      "preflight OtherDecoratorsByReference.get of tool 'notes_delete' (OtherDecoratorsByReference.delete) binds parameter #1 as @McpArg('id'), " +
        "the tool as @McpCaller('subject'): a preflight is called with its tool's parameters, so give it the tool's parameter decorators or none",
    );
  });

  it('a method name that the provider lacks stops the app (the deprecated name form)', async () => {
    @Injectable()
    class MissingName {
      @McpTool({ name: 'notes_delete', description: 'x', ...DESTRUCTIVE, preflight: 'nowhere' })
      delete(@McpArg('id') id: string) {
        return id;
      }
    }
    expect(await bootError(MissingName)).toBe(
      "@McpTool 'notes_delete' on MissingName.delete: preflight 'nowhere' is not a method of the same provider (MissingName)",
    );
  });
});
