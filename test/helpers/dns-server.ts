import { createSocket } from 'node:dgram';

/**
 * A real DNS server on a loopback UDP port, for the browsers' proxy to ask (its `names.servers`
 * option): no test changes /etc/resolv.conf. `answer` decides per question: addresses (an empty
 * list is a name with no record of that type), `nxdomain`, or `hang` (the query is read and
 * never answered, as a DNS server that has gone away).
 */
export type DnsAnswer = string[] | 'nxdomain' | 'hang';

export interface TestDns {
  /** host:port, as `names.servers` takes it */
  server: string;
  /** every question asked (type `A`, `AAAA`, or another's number), in order, with when it came (epoch ms) */
  queries: { name: string; type: string; at: number }[];
  close(): Promise<void>;
}

const TYPES: Record<number, string> = { 1: 'A', 28: 'AAAA' };

export async function startDns(answer: (name: string, type: string) => DnsAnswer): Promise<TestDns> {
  const socket = createSocket('udp4');
  const queries: TestDns['queries'] = [];
  socket.on('message', (message, from) => {
    const question = readQuestion(message);
    if (!question) {
      return;
    }
    queries.push({ name: question.name, type: question.type, at: Date.now() });
    const decided = answer(question.name, question.type);
    if (decided === 'hang') {
      return;
    }
    socket.send(reply(message, question.end, question.type, decided), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    queries,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

/** The first question of a query: its name (lower case, no trailing dot), type, and where it ends. */
function readQuestion(message: Buffer): { name: string; type: string; end: number } | undefined {
  if (message.length < 12 || message.readUInt16BE(4) < 1) {
    return undefined;
  }
  const labels: string[] = [];
  let at = 12;
  while (at < message.length) {
    const length = message[at] ?? 0;
    if (length === 0) {
      break;
    }
    labels.push(message.subarray(at + 1, at + 1 + length).toString('latin1'));
    at += 1 + length;
  }
  if (at + 5 > message.length) {
    return undefined;
  }
  const code = message.readUInt16BE(at + 1);
  return { name: labels.join('.').toLowerCase(), type: TYPES[code] ?? String(code), end: at + 5 };
}

function reply(query: Buffer, questionEnd: number, type: string, decided: string[] | 'nxdomain'): Buffer {
  const records = decided === 'nxdomain' ? [] : decided.filter((ip) => (type === 'AAAA') === ip.includes(':'));
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  // A response, recursion desired and available; rcode 3 is NXDOMAIN.
  header.writeUInt16BE(0x8180 | (decided === 'nxdomain' ? 3 : 0), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records.length, 6);
  const answers = records.map((ip) => {
    const data = ip.includes(':') ? ipv6Bytes(ip) : Buffer.from(ip.split('.').map(Number));
    const record = Buffer.alloc(12);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(type === 'AAAA' ? 28 : 1, 2);
    record.writeUInt16BE(1, 4); // class IN
    record.writeUInt32BE(0, 6); // TTL 0: nothing may keep it
    record.writeUInt16BE(data.length, 10);
    return Buffer.concat([record, data]);
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...answers]);
}

function ipv6Bytes(ip: string): Buffer {
  const [head = '', tail = ''] = ip.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = ip.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  const bytes = Buffer.alloc(16);
  groups.forEach((g, i) => bytes.writeUInt16BE(parseInt(g, 16), 2 * i));
  return bytes;
}
