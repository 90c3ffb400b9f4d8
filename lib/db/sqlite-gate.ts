// Prisma's better-sqlite3 adapter runs every query of a process on ONE connection. It serialises
// interactive transactions with a mutex, but an ordinary query issued while a transaction is open
// runs on that same connection, inside the open BEGIN: if the transaction then rolls back (the
// ledger's take() does when funds are short), the ordinary write is rolled back with it although
// its caller was told it succeeded; and a read slipping in can turn the transaction's write into an
// immediate SQLITE_BUSY. This gate makes ordinary queries wait while a transaction is open, so
// each statement runs either inside its own transaction or outside every transaction.

type Query = { sql: string; args: unknown[]; argTypes: unknown[] };
type Tx = { commit(): Promise<void>; rollback(): Promise<void> } & Record<string, unknown>;
type Adapter = {
  queryRaw(q: Query): Promise<unknown>;
  executeRaw(q: Query): Promise<number>;
  executeScript(script: string): Promise<void>;
  startTransaction(isolationLevel?: string): Promise<Tx>;
} & Record<string, unknown>;
type Factory = { provider: string; adapterName: string; connect(): Promise<Adapter> } & Record<string, unknown>;

/** FIFO lock for transactions; `idle()` resolves once no transaction holds or awaits it. */
class TransactionGate {
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;

  async acquire(): Promise<() => void> {
    this.pending++;
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.pending--;
      release();
    };
  }

  /** Waits until no transaction is open or queued. better-sqlite3 runs a statement synchronously,
   * so a statement started right after this resolves cannot interleave with a transaction. */
  async idle(): Promise<void> {
    while (this.pending > 0) await this.tail;
  }
}

function gateAdapter(adapter: Adapter): Adapter {
  const gate = new TransactionGate();
  const outside =
    <A extends unknown[], R>(run: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await gate.idle();
      return run(...args);
    };
  const queryRaw = outside((q: Query) => adapter.queryRaw(q));
  const executeRaw = outside((q: Query) => adapter.executeRaw(q));
  const executeScript = outside((s: string) => adapter.executeScript(s));
  const startTransaction = async (isolationLevel?: string): Promise<Tx> => {
    const release = await gate.acquire();
    let tx: Tx;
    try {
      tx = await adapter.startTransaction(isolationLevel);
    } catch (error) {
      release();
      throw error;
    }
    return new Proxy(tx, {
      get(target, prop, receiver) {
        if (prop === "commit" || prop === "rollback") {
          return async () => {
            try {
              await target[prop]();
            } finally {
              release();
            }
          };
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  };
  const overrides: Record<string, unknown> = { queryRaw, executeRaw, executeScript, startTransaction };
  return new Proxy(adapter, {
    get(target, prop, receiver) {
      if (typeof prop === "string" && prop in overrides) return overrides[prop];
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The adapter factory with every connection it opens gated (see the file comment). */
export function gateSqliteFactory<F extends object>(factory: F): F {
  const f = factory as unknown as Factory;
  return new Proxy(f, {
    get(target, prop, receiver) {
      if (prop === "connect") return async () => gateAdapter(await target.connect());
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as unknown as F;
}
