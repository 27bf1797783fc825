package io.relock.spi;

import java.util.List;

/**
 * A script's reply and how many replicas acknowledged the writes made up to it ({@code WAIT}'s
 * answer).
 *
 * @param reply the script's reply, as {@link RedisDriver#evalSha} gives it
 * @param acknowledged replicas that acknowledged within the timeout
 */
public record ReplicatedReply(List<Object> reply, long acknowledged) {}
