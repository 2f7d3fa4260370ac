export { conversationWorkflow } from './conversation';
export { deliveryWorkflow } from './delivery';
