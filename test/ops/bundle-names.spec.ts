import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';
import { dropUnneededNames } from '../../scripts/bundle-names.mjs';

/**
 * The bundle's pass over esbuild's keepNames wrappers (scripts/bundle-names.mjs): every function
 * and class keeps the name keepNames gives it, and only the wrappers that change nothing go.
 */
describe("the bundle's keepNames wrappers", () => {
  /** Two modules that both declare `helper` (esbuild renames the second), bundled as the build does. */
  const MODULES: Record<string, string> = {
    './a.js': `export function helper() { return 1 }
      export const a = () => { const inner = () => helper(); return inner };
      export class Service { handle() { const step = () => 1; return step } }
      export const shared = () => 'a';`,
    './b.js': `export function helper() { return 2 }
      export const b = () => {
        const obj = { get: () => helper(), run: function () {}, 'two words': () => 0 };
        let x;
        x = () => 0;
        function local() {}
        const header = (name) => name;
        return { obj, x, local, header };
      };
      export class Service { field = () => 0; static made = class {} }
      export const sharedB = () => { const shared = () => 'b'; return shared };`,
  };

  async function bundled(): Promise<string> {
    const result = await build({
      stdin: {
        contents: `import { a, helper, Service, shared } from './a.js';
          import { b, helper as helperB, Service as ServiceB, sharedB } from './b.js';
          exports.all = { a, b, helper, helperB, Service, ServiceB, shared, sharedB };`,
        loader: 'js',
      },
      bundle: true,
      write: false,
      format: 'cjs',
      platform: 'node',
      keepNames: true,
      minifyWhitespace: true,
      minifySyntax: true,
      logLevel: 'silent',
      plugins: [
        {
          name: 'modules',
          setup(b) {
            b.onResolve({ filter: /^\.\/[ab]\.js$/ }, (args) => ({ path: args.path, namespace: 'modules' }));
            b.onLoad({ filter: /.*/, namespace: 'modules' }, (args) => ({
              contents: MODULES[args.path],
              loader: 'js',
            }));
          },
        },
      ],
    });
    return result.outputFiles[0]!.text;
  }

  /** Every function's and class's name the bundle's code makes, reached the way a caller would. */
  function names(code: string): Record<string, string> {
    const exports: { all?: any } = {};
    runInNewContext(code, { exports, Object });
    const { a, b, helper, helperB, Service, ServiceB, shared, sharedB } = exports.all;
    const made = b();
    return {
      a: a.name,
      inner: a().name,
      helper: helper.name,
      helperB: helperB.name,
      Service: Service.name,
      step: new Service().handle().name,
      ServiceB: ServiceB.name,
      field: new ServiceB().field.name,
      made: ServiceB.made.name,
      b: b.name,
      get: made.obj.get.name,
      run: made.obj.run.name,
      twoWords: made.obj['two words'].name,
      x: made.x.name,
      local: made.local.name,
      header: made.header.name,
      shared: shared.name,
      sharedInner: sharedB().name,
    };
  }

  it('leaves every name as keepNames made it, and removes the wrappers that change nothing', async () => {
    const code = await bundled();
    const dropped = dropUnneededNames(code);
    expect(names(dropped.code)).toEqual(names(code));
    // The names as the sources give them: the renamed `helper` of b.js is still "helper".
    expect(names(dropped.code)).toEqual({
      a: 'a',
      inner: 'inner',
      helper: 'helper',
      helperB: 'helper',
      Service: 'Service',
      step: 'step',
      ServiceB: 'Service',
      field: 'field',
      made: 'made',
      b: 'b',
      get: 'get',
      run: 'run',
      twoWords: 'two words',
      x: 'x',
      local: 'local',
      header: 'header',
      shared: 'shared',
      sharedInner: 'shared',
    });
    const calls = (text: string) => text.match(/__name\(/g)?.length ?? 0; // the helper is defined as `__name=`
    expect(dropped.dropped).toBeGreaterThanOrEqual(8);
    // The closure b.js makes is bound to `shared2` (a.js has `shared`): named by a literal.
    expect(dropped.literal).toBeGreaterThanOrEqual(1);
    expect(calls(dropped.code)).toBe(dropped.kept);
    expect(dropped.dropped + dropped.literal + dropped.kept).toBe(calls(code));
  });

  const HELPER = 'var __name=(t,v)=>Object.defineProperty(t,"name",{value:v,configurable:!0});';

  /** The `name` of every function the snippet puts in `exports.all`, run in a context of its own. */
  const namesOf = (code: string): string[] => {
    const exports: { all?: { name: string }[] } = {};
    runInNewContext(code, { exports, Object });
    return exports.all!.map((fn) => fn.name);
  };

  it('keeps the wrappers whose function the language would not name the same, and their names', () => {
    const code = [
      HELPER,
      // A renamed declaration; a declaration in another list; one assigned again before its name is set.
      'function helper2(){}__name(helper2,"helper");',
      'function g(){return __name(h,"h"),h}function h(){}',
      'function f(){}f=function other(){};__name(f,"f");',
      // In a switch case: not a statement list of a block.
      'var s;switch(1){case 1:function sw(){}__name(sw,"sw");s=sw}',
      // A class (a static `name` would answer otherwise); called, or tagged, where it stands.
      'var C=__name(class{},"C");',
      'var t=__name(function(){return typeof this},"t")();',
      // Through parentheses too; an optional call; a tag.
      'var p=(__name(function(){return typeof this},"p"))();',
      'var q=__name(function(){return 1},"q")?.();',
      'var r=__name(function(){return String},"r")`x`;',
      // Where it would begin a statement.
      '__name(()=>0,"st");',
      // `__proto__` sets the prototype.
      'var o={__proto__:__name(function(){},"__proto__")};',
      // A declaration whose name is written again below its list, each way a name is written.
      'function w1(){}function bump(){w1++}__name(w1,"w1");',
      'function w2(){}for(w2 of[])0;__name(w2,"w2");',
      'function w3(){}[w3]=[function(){}];__name(w3,"w3");',
      'function w4(){}var w4=function x(){};__name(w4,"w4");',
      'function w5(){}{function w5(){}}__name(w5,"w5");',
      // A parameter of the same name, where the call stands.
      'function w6(){}var w6b=(w6)=>__name(w6,"w6");',
      'exports.all=[helper2,g(),f,s,C];',
    ].join('');
    const result = dropUnneededNames(code);
    expect(result).toEqual({ code, dropped: 0, literal: 0, kept: 17 });
    expect(namesOf(code)).toEqual(['helper', 'h', 'f', 'sw', 'C']);
    // A direct eval may write any name, in every list around it (here alone: it would keep every wrapper above).
    const evaluating = `${HELPER}function w7(){}function ev(){eval("")}__name(w7,"w7");`;
    expect(dropUnneededNames(evaluating)).toEqual({ code: evaluating, dropped: 0, literal: 0, kept: 1 });
  });

  it('drops the wrappers where the declaration or the binding names the function the same', () => {
    const code = [
      HELPER,
      'function f(){return __name(g,"g"),g;function g(){}}__name(f,"f");',
      'var a=__name(()=>0,"a"),o={b:__name(function(){},"b"),"c d":__name(()=>0,"c d"),1:__name(()=>0,"1")};',
      'let e;e=__name(()=>0,"e");',
      'class K{h=__name(()=>0,"h")}',
      'var n=__name(()=>{let m=__name(()=>0,"m");return m},"n");',
      'exports.all=[f,f(),a,o.b,o["c d"],o[1],e,new K().h,n,n()];',
    ].join('');
    const result = dropUnneededNames(code);
    expect(result).toEqual({
      code: [
        HELPER,
        'function f(){return g,g;function g(){}}f;',
        'var a=()=>0,o={b:function(){},"c d":()=>0,1:()=>0};',
        'let e;e=()=>0;',
        'class K{h=()=>0}',
        'var n=()=>{let m=()=>0;return m};',
        'exports.all=[f,f(),a,o.b,o["c d"],o[1],e,new K().h,n,n()];',
      ].join(''),
      dropped: 10,
      literal: 0,
      kept: 0,
    });
    expect(namesOf(result.code)).toEqual(namesOf(code));
  });

  it('names the other anonymous functions by an object literal, as keepNames named them', () => {
    const code = [
      HELPER,
      'let header2=__name(n=>n,"header");',
      'var inner=()=>__name(()=>1,"inner");',
      'var k="key",o={[k]:__name(()=>0,"key")};',
      'var x;(x)=__name(function(){},"x");',
      'var list=[__name(async()=>0,"listed"),__name(function*(){},"gen"),__name(async function*(){},"agen")];',
      'var esc=[__name(()=>0,"\\u00e9t\\u00e9")];',
      'exports.all=[header2,inner(),o.key,x,list[0],list[1],list[2],esc[0]];',
    ].join('');
    const result = dropUnneededNames(code);
    expect(result).toEqual({
      code: [
        HELPER,
        'let header2=({"header":n=>n})["header"];',
        'var inner=()=>({"inner":()=>1})["inner"];',
        'var k="key",o={[k]:({"key":()=>0})["key"]};',
        'var x;(x)=({"x":function(){}})["x"];',
        'var list=[({"listed":async()=>0})["listed"],({"gen":function*(){}})["gen"],({"agen":async function*(){}})["agen"]];',
        // The key as esbuild wrote it: the bundle stays ASCII.
        'var esc=[({"\\u00e9t\\u00e9":()=>0})["\\u00e9t\\u00e9"]];',
        'exports.all=[header2,inner(),o.key,x,list[0],list[1],list[2],esc[0]];',
      ].join(''),
      dropped: 0,
      literal: 8,
      kept: 0,
    });
    expect(namesOf(result.code)).toEqual(['header', 'inner', 'key', 'x', 'listed', 'gen', 'agen', 'été']);
    expect(namesOf(result.code)).toEqual(namesOf(code));
  });
});
