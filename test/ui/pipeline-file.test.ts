import { describe, expect, it } from 'vitest';
import { parsePipelineText } from '../../src/ui/pipeline-file.js';

const parse = (text: string, name?: string) =>
  parsePipelineText(text, 'pipeline.yaml', { cwd: '/work', ...(name ? { name } : {}) });

describe('pipeline files', () => {
  it(
    'reads stages with flag or field spellings; a string command runs with sh -c; each stage carries the current ' +
      'directory as its workspace',
    () => {
      const request = parse(
        'name: demo\nstages:\n  prep:\n    command: echo hi\n    max-retries: 2\n  train:\n    needs: [prep]\n    ' +
          'maxRetries: 1\n    image: py:3\n    command: [python, train.py]\n',
      );
      expect(request).toEqual({
        name: 'demo',
        stages: {
          prep: { command: ['sh', '-c', 'echo hi'], maxRetries: 2, workspace: '/work' },
          train: { needs: ['prep'], maxRetries: 1, image: 'py:3', command: ['python', 'train.py'], workspace: '/work' },
        },
      });
      expect(parse('name: a\nstages:\n  s:\n    command: [x]\n', 'other').name).toBe('other');
    },
  );

  it('a stage asks for gpu memory with gpu-memory (gpuMemory), and carries category and uses', () => {
    const request = parse(
      'name: d\nstages:\n  ft:\n    command: [x]\n    gpu: H100\n    gpu-memory: 40GiB\n    category: training\n    ' +
        'uses: [llama-3-8b]\n',
    );
    expect(request.stages.ft).toMatchObject({
      gpu: 'H100',
      gpuMemory: '40GiB',
      category: 'training',
      uses: ['llama-3-8b'],
    });
  });

  it.each([
    [
      'name: d\nstages:\n  a:\n    command: [x]\n    needs: [b]\n',
      'pipeline.yaml: stages.a.needs[0]: unknown stage "b" (stages: a)',
    ],
    [
      'name: d\nstages:\n  a:\n    command: [x]\n    cpus: 2\n',
      'pipeline.yaml: stages.a.cpus: unknown key (did you mean "cpu"?)',
    ],
    ['name: d\nstages:\n  a:\n    needs: []\n', 'pipeline.yaml: stages.a.command: is required'],
    ['name: d\nstages:\n  a:\n    command: [x]\n    category: eval\n', 'pipeline.yaml: stages.a.category'],
    [
      'name: d\nstages:\n  a:\n    command: [x]\n  a:\n    command: [y]\n',
      'pipeline.yaml: invalid YAML: Map keys must be unique',
    ],
    ['stages:\n  a:\n    command: [x]\n', 'pipeline.yaml: name'],
    ['- a\n', 'pipeline.yaml: expected a mapping with name and stages'],
    [
      'name: d\nstages:\n  a:\n    command: [x]\n  b:\n    command: ["${stages.a.result.k}"]\n',
      'pipeline.yaml: stages.b.command[0]: ${stages.a.result.k}: stage "a" is not in needs (needs: none)',
    ],
  ])('refuses %j naming the file and the path', (text, expected) => {
    expect(() => parse(text)).toThrow(expected);
  });
});
