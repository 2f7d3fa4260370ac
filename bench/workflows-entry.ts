// One workflow bundle for the benchmark: the product's workflows plus the bench's reference workflows.
export * from '../src/workflows';
export * from './workflows';
