package io.relock.docs;

/** An order to pay, for the Spring Boot snippet. */
public record Order(String id, String account, long total) {}
