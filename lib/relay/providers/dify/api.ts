// What Dify sends back, the fields the converters read: a blocking chat-messages answer (or its
// error body) and the streaming events.
import { z } from "zod";
import { anyObject, maybe, type Unchecked } from "../wire";

export const DifyAnswer = z
  .object({
    event: z.unknown().optional(),
    code: maybe(z.string()),
    message: z.unknown().optional(),
    // Unknown, not string: an error body is told apart by `answer` being absent, whatever it holds.
    answer: z.unknown().optional(),
    // The usage is passed on as Dify wrote it.
    metadata: maybe(z.object({ usage: maybe(anyObject) }).loose()),
  })
  .loose();

/**
 * A streaming event (`message`, `agent_message`, `agent_thought`, `message_end`, `error`…). Not run
 * per event (the converter checks what it reads by hand); it types the event and the tests hold
 * the recorded streams to it.
 */
export const DifyStreamEvent = z
  .object({
    event: z.string(),
    answer: z.unknown().optional(),
    type: z.unknown().optional(),
    url: z.unknown().optional(),
    metadata: z.unknown().optional(),
    message: z.unknown().optional(),
    code: z.unknown().optional(),
    id: z.unknown().optional(),
    position: z.unknown().optional(),
    thought: z.unknown().optional(),
    tool: z.unknown().optional(),
    tool_input: z.unknown().optional(),
    observation: z.unknown().optional(),
  })
  .loose();
export type DifyEvent = Unchecked<z.output<typeof DifyStreamEvent>>;
