export { conversationWorkflow } from './conversation';
