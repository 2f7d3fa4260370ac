// js-yaml 4 ships no types; the compose test needs only `load`.
declare module 'js-yaml' {
  export function load(text: string): unknown;
}
