import { compileUriTemplate } from './uri-template.js';

describe('compileUriTemplate', () => {
  const steps = compileUriTemplate('kobana://kadu/executions/{id}/steps');
  const one = compileUriTemplate('kobana://kadu/executions/{id}');

  it('matches the whole URI and captures variables', () => {
    expect(one.match('kobana://kadu/executions/abc-1')).toEqual({ id: 'abc-1' });
    expect(steps.match('kobana://kadu/executions/abc-1/steps')).toEqual({ id: 'abc-1' });
    expect(one.variables).toEqual(['id']);
  });

  it.each([
    'kobana://kadu/executions/abc-1/steps',
    'kobana://kadu/executions/',
    'kobana://kadu/executions/a%2Fb',
    'kobana://kadu/executions/a?x=1',
    'kobana://kadu/executions/a#f',
    'xkobana://kadu/executions/a',
    'kobana://kadu/executions/a\nb',
  ])('refuses %j for {id}', (uri) => expect(one.match(uri)).toBeUndefined());

  it('takes per-variable patterns', () => {
    const t = compileUriTemplate('test://files/{path}', { path: /^[a-z/]+$/ });
    expect(t.match('test://files/a/b')).toEqual({ path: 'a/b' });
    expect(t.match('test://files/A')).toBeUndefined();
  });

  it('refuses templates beyond level 1', () => {
    expect(() => compileUriTemplate('x://{+path}')).toThrow(/level-1/);
    expect(() => compileUriTemplate('x://{a}/{a}')).toThrow(/twice/);
  });
});
