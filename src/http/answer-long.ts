// An answer too long to write at once: a long list, a snapshot, the request log (pieces.ts).
import { answered } from "./accounting.ts";
import { HttpError } from "../api/errors.ts";
import type { LongBody } from "./pieces.ts";
import type { Reply } from "../api/reply.ts";
import { bodyText, type SendOptions } from "./respond.ts";
import type { Exchange } from "./serving.ts";

/**
 * Sends a reply too long to write at once through the scheduler of long answers (pieces.ts);
 * says whether it goes out later, holding back the requests behind it on its connection until
 * it has. With too many long answers in flight already, the request gets 503 instead.
 */
export function answerLong<R, S>(exchange: Exchange<R, S>, reply: Reply, body: LongBody, options: SendOptions): boolean {
  const { serving } = exchange;
  // An answer whose pieces all go out in this call is answered now, like any other.
  let now = true;
  let done = false;
  const release = reply.release;
  const taken = serving.front.sendLong(exchange, reply, body, options, (bytes) => {
    release?.();
    answered(exchange, reply.status, bytes);
    done = true;
    if (!now) serving.queue.proceed(serving.front.connection(exchange));
  });
  now = false;
  if (taken) return !done;
  release?.();
  const busy = new HttpError("SERVER_BUSY", "Too many long answers are being written at once; retry in a second", { headers: { "retry-after": "1" } });
  const refusal = busy.toReply();
  answered(exchange, busy.status, serving.front.send(exchange, refusal, options, bodyText(refusal)));
  return false;
}
