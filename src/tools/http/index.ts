// Declarative HTTP tools ("API mode"): definitions in the config file become ExternalTools.
export { createHttpTools, HttpFailure, type HttpToolsOptions } from './tools';
export { httpToolSchema, httpToolsSchema, parseHttpTools, type HttpToolDef, type HttpToolInput } from './schema';
export { httpCircuitStates, Circuits, workerCircuits, type CircuitState, type CircuitStateName } from './circuit';
export { publishCircuitStates, readPublishedCircuitStates, type PublishedCircuits } from './circuit-file';
