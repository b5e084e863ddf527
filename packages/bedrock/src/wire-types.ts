import type {
  ConverseCommandInput,
  ConverseCommandOutput,
  ConverseStreamOutput,
} from '@aws-sdk/client-bedrock-runtime';

/**
 * One Converse request as the codec builds it: the same members serve `Converse` and
 * `ConverseStream` (`modelId` is the path parameter, the rest the JSON body).
 */
export type BedrockRequest = ConverseCommandInput;

/** A whole Converse reply, as the SDK parses it. */
export type BedrockReply = ConverseCommandOutput;

/** One ConverseStream event, as the SDK's iterator yields it. */
export type BedrockChunk = ConverseStreamOutput;
