/** Fixed final texts a user reads when a turn ends without the model's own answer (listed in README). */
export const turnTexts = {
  emptyAnswer: 'The model returned an empty answer. Please try again or rephrase your message.',
  iterationBudget: (max: number) =>
    `I stopped after ${max} rounds of tool calls without reaching an answer (the max_tool_iterations limit). ` +
    'Say "continue" to let me go on.',
  loopDetected: (tool: string, count: number) =>
    `I stopped because I called ${tool} ${count} times in a row with the same arguments without making progress.`,
  stopRequested: 'Stopped.',
  failed: (message: string) => `Sorry, the model could not be reached: ${message}`,
} as const;
