export { conversationWorkflow } from './conversation';
export { deliveryWorkflow } from './delivery';
export { memoryWorkflow } from './memory';
export { skillsWorkflow } from './skills';
