// Bounded in-memory capture of a process's output: a command that prints gigabytes must not take the worker
// down. Keeps the first and the last half of the budget, which is where errors and summaries usually are.
export class HeadTailBuffer {
  private head = '';
  private tail: string[] = [];
  private tailLength = 0;
  private dropped = 0;

  constructor(private readonly maxChars: number) {}

  push(chunk: string): void {
    const headRoom = Math.floor(this.maxChars / 2) - this.head.length;
    if (headRoom > 0) {
      this.head += chunk.slice(0, headRoom);
      chunk = chunk.slice(headRoom);
    }
    if (!chunk) return;
    this.tail.push(chunk);
    this.tailLength += chunk.length;
    const tailMax = this.maxChars - Math.floor(this.maxChars / 2);
    while (this.tailLength > tailMax) {
      const excess = this.tailLength - tailMax;
      const first = this.tail[0];
      if (first.length <= excess) {
        this.tail.shift();
        this.tailLength -= first.length;
        this.dropped += first.length;
      } else {
        this.tail[0] = first.slice(excess);
        this.tailLength -= excess;
        this.dropped += excess;
      }
    }
  }

  toString(): string {
    const tail = this.tail.join('');
    return this.dropped > 0 ? `${this.head}\n[... ${this.dropped} characters dropped ...]\n${tail}` : this.head + tail;
  }
}
