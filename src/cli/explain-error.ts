// What the CLI says when a Temporal call fails: the SDK's service errors name the call ("Failed to list workflows")
// and keep the server's reason in their cause.
import { SEARCH_ATTRIBUTE_TYPES } from '../shared/search-attributes';
import { searchAttributeCommand, unregisteredAttribute } from '../startup/register-attributes';

/**
 * Both what failed and why. A filter or a search on a namespace without one of Hermes' search attributes says
 * which one and how it is added.
 */
export function explained(err: Error): Error {
  const missing = Object.keys(SEARCH_ATTRIBUTE_TYPES).find((name) => unregisteredAttribute(err, name));
  if (missing) {
    return new Error(
      `this namespace has no search attribute ${missing}, which this needs: \`hermes worker\` registers it where it may, ` +
        `or an admin adds it: ${searchAttributeCommand('<namespace>', missing)}`,
      { cause: err },
    );
  }
  const cause = err.cause as { details?: unknown; message?: unknown } | undefined;
  const why = typeof cause?.details === 'string' && cause.details ? cause.details : cause?.message;
  return typeof why === 'string' && why && !err.message.includes(why) ? new Error(`${err.message}: ${why}`, { cause: err }) : err;
}
