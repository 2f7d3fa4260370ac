// A bundle with only the floor workflows (no zod, no agent loop): to see what the bundle itself costs.
export { floorThroughputWorkflow, floorWorkflow } from './workflows';
