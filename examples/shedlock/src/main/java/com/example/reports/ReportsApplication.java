package com.example.reports;

import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * Connects to spring.data.redis.* (application.properties or the environment). No LockProvider
 * bean: relock's starter offers RelockLockProvider on the application's Relock. An application
 * that declares its own keeps it; to name relock's explicitly:
 *
 * <pre>{@code
 * @Bean
 * LockProvider lockProvider(Relock relock) {
 *   return new RelockLockProvider(relock);
 * }
 * }</pre>
 */
@SpringBootApplication
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "PT10M")
public class ReportsApplication {

  public static void main(String[] args) {
    SpringApplication.run(ReportsApplication.class, args);
  }
}
