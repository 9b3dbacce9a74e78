// Answers written on a raw socket, where no request reached the API: bad bytes, time-outs, an Expect it cannot meet, CONNECT.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { ERROR_CATALOGUE, type ErrorCode, HttpError } from "../api/errors.ts";
import { clip } from "../api/input.ts";
import type { Logger } from "../ops/log.ts";
import type { Metrics } from "../ops/metrics.ts";
import type { Connections } from "./connections.ts";
import type { Handlers } from "./listener.ts";
import { requestIdOf } from "./request-id.ts";
import { rawErrorResponse } from "./respond.ts";

/**
 * Makes every answer of `server` JSON, those its parser gives up on too: bad bytes and
 * time-outs (`clientError`), an `Expect` other than `100-continue`, and CONNECT. Each is logged
 * and counted like any answer.
 */
export function answerRawErrors(
  server: Server,
  api: Pick<Handlers, "refuse">,
  connections: Connections,
  { logger, metrics }: { logger: Logger; metrics: Metrics | undefined },
): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    const connection = connections.all.get(socket as Socket);
    const pending = connection === undefined ? [] : [...connections.pending(connection)];
    // Bad bytes after whole requests that still await their answers belong to a later,
    // pipelined request: those answers go out first, then the connection closes.
    if (error.code !== "ERR_HTTP_REQUEST_TIMEOUT" && pending.length > 0 && pending.every((r) => r.req.complete)) {
      connections.closeWhenAnswered(socket as Socket, connection!);
      return;
    }
    // Answer only where no answer has begun on this connection, so none is corrupted.
    if (socket.writable && !pending.some((response) => response.headersSent)) {
      const [code, message] = describeClientError(error.code);
      // A request whose headers had arrived (its body timed out, or broke off) keeps its method, target and id.
      const request = pending[0]?.req;
      answerRaw(socket, code, message, request?.method ?? "-", request?.url ?? "-", request?.headers["x-request-id"]);
    }
    socket.destroy();
  });
  // Without these listeners Node answers an unknown `Expect` with a bare 417 and
  // drops CONNECT without a word; every answer of this API is JSON.
  server.on("checkExpectation", (request: IncomingMessage, response: ServerResponse) => {
    // Owed like any answer, so that it closes its connection once sent during shutdown.
    connections.owe(request, response);
    const expectation = clip(request.headers.expect ?? "");
    // A body it announced is never read: the answer closes the connection.
    api.refuse(request, response, new HttpError("EXPECTATION_FAILED", `Expect: ${expectation} is not supported; send Expect: 100-continue or none`));
  });
  // This API is not a proxy: CONNECT gets a 404 like any unknown target.
  server.on("connect", (request: IncomingMessage, socket: Duplex) => {
    const message = `No route for CONNECT ${clip(request.url ?? "")}`;
    answerRaw(socket, "ROUTE_NOT_FOUND", message, "CONNECT", request.url ?? "", request.headers["x-request-id"]);
    socket.end(() => socket.destroy());
  });

  /**
   * Writes a whole error answer on a socket the HTTP parser gave up on, and logs and counts it
   * like any answer: with the request's own id if it sent a sane one, and no duration, since
   * when its bytes began to arrive is not known.
   */
  function answerRaw(socket: Duplex, code: ErrorCode, message: string, method: string, path: string, sentId?: string | string[]): void {
    const requestId = requestIdOf(sentId);
    const text = rawErrorResponse(code, message, requestId);
    socket.write(text);
    const { status } = ERROR_CATALOGUE[code];
    metrics?.answeredRaw(status);
    const bytes = Buffer.byteLength(text) - text.indexOf("\r\n\r\n") - 4;
    logger.access({ method, path, status, bytes, milliseconds: 0, requestId, remote: (socket as Socket).remoteAddress });
  }

}

function describeClientError(code: string | undefined): [ErrorCode, string] {
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") {
    return ["REQUEST_TIMEOUT", "The request took too long to arrive; send it again"];
  }
  if (code === "HPE_HEADER_OVERFLOW") {
    return ["HEADERS_TOO_LARGE", "Request headers are too large; send fewer or shorter headers"];
  }
  return ["BAD_REQUEST", "The request is not valid HTTP/1.1"];
}
