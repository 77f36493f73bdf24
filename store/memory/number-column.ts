/**
 * A column of numbers, one per indexed turn, in a typed array that doubles when full. A typed array's numbers live
 * outside the JS heap and its spare room is never written, so it stays unresident: 100,000 turns cost a few
 * megabytes, where arrays of JS numbers cost several times that and leave their grown-out copies in the heap.
 */
export class NumberColumn {
  private data: Int32Array | Float64Array;
  length = 0;

  /** `int`: ids that fit 32 bits; `float`: times and log sequence numbers. */
  constructor(private readonly kind: 'int' | 'float') {
    this.data = this.allocate(1024);
  }

  static of(kind: 'int' | 'float', values: number[]): NumberColumn {
    const column = new NumberColumn(kind);
    for (const value of values) column.push(value);
    return column;
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = this.allocate(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }

  get(row: number): number {
    return this.data[row]!;
  }

  /** The last row holding `value`, or -1. */
  lastIndexOf(value: number): number {
    return this.data.subarray(0, this.length).lastIndexOf(value);
  }

  toJSON(): number[] {
    return Array.from(this.data.subarray(0, this.length));
  }

  private allocate(size: number): Int32Array | Float64Array {
    return this.kind === 'int' ? new Int32Array(size) : new Float64Array(size);
  }
}
