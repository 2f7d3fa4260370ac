// Loop limits shared by the model and tool steps. A leaf module.

/** Consecutive tool calls that could not run (unknown tool, invalid arguments, unreadable text) before a stop. */
export const MAX_INVALID_STREAK = 5;
