// The platform's bad days as the WeCom, DingTalk, QQ and OneBot emulators play them: answers kept back (the bot dies
// mid-send) and an outage (connections dropped, new ones refused for a while).

/** Answers to the bot's sends, given at once or kept back while a hold is on. */
export class HeldAnswers {
  private hold: { answers: Array<() => void>; on: boolean } | undefined;

  /** From now on sends are carried out but their answers kept back until `release()`. */
  start(): { held(): number; release(): void } {
    const hold = { answers: [] as Array<() => void>, on: true };
    this.hold = hold;
    return {
      held: () => hold.answers.length,
      release: () => {
        hold.on = false;
        for (const answer of hold.answers.splice(0)) answer();
      },
    };
  }

  /** Gives `answer` now, or keeps it back while a hold is on. */
  answer(answer: () => void): void {
    if (this.hold?.on) this.hold.answers.push(answer);
    else answer();
  }
}

/** Whether the platform refuses connections now; `for` drops the open ones and refuses new ones for `ms`. */
export class Outage {
  refusing = false;

  async for(ms: number, drop: () => void): Promise<void> {
    this.refusing = true;
    drop();
    await new Promise((resolve) => setTimeout(resolve, ms));
    this.refusing = false;
  }
}
