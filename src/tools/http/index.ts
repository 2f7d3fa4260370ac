// Declarative HTTP tools ("API mode"): definitions in the config file become ExternalTools.
export { createHttpTools } from './tools';
export type { HttpToolInput } from './schema';
export { httpCircuitStates, Circuits } from './circuit';
export { publishCircuitStates, readPublishedCircuitStates, type PublishedCircuits } from './circuit-file';
