// js-yaml 4 ships no type declarations; the one function the eval suite loader uses.
declare module 'js-yaml' {
  export function load(text: string, options?: { filename?: string }): unknown;
}
