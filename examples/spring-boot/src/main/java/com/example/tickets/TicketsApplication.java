package com.example.tickets;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** Connects to spring.data.redis.* (application.properties or the environment). */
@SpringBootApplication
public class TicketsApplication {

  public static void main(String[] args) {
    SpringApplication.run(TicketsApplication.class, args);
  }
}
