// Refusing a call whose arguments hold redaction placeholders (found by placeholdersIn, src/shared/redaction-types.ts). The model activity redacts what the model wrote before it is
// recorded (src/activities/model.ts), and the model only ever sees placeholders for secrets in what it reads, so a
// `[REDACTED:…]` in the arguments of a call that writes stands for a value the tool does not have. Writing it would
// put the placeholder in the file where the secret should be, silently; the call is refused instead, with a reason
// the model and the user can read. Workflow-safe (pure string work).

/** Why a call that would write placeholders did not run: for the model, and for the user reading the run. */
export function withheldRefusal(tool: string, placeholders: string[]): string {
  const shown = placeholders.slice(0, 5).join(', ') + (placeholders.length > 5 ? ', …' : '');
  return (
    `Error: ${tool} was not run: its arguments hold ${shown}, a placeholder for a secret that was withheld from the model ` +
    '(redacted before it reached you and the history). The tool has no copy of the value, so it would have written the ' +
    'placeholder where the secret belongs. Nothing was changed. Do not retry with the placeholder: tell the user which ' +
    'file and setting need the secret; they must write that value themselves (or refer to it, e.g. as an environment variable).'
  );
}
