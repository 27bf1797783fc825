package io.relock.docs;

/** What a payment returns, for the Spring Boot snippet. */
public record Receipt(String orderId, long balance, long fencingToken) {}
