package com.example.reports;

import org.springframework.stereotype.Component;

/**
 * Stands for the database the report goes to: it keeps the highest fencing token it has accepted
 * and refuses writes with a lower one (in SQL: {@code UPDATE ... WHERE token <= ?}).
 */
@Component
public class ReportStore {
  private long highestToken;
  private String report;
  private int writes;

  public synchronized boolean save(String report, long token) {
    if (token < highestToken) {
      return false;
    }
    highestToken = token;
    this.report = report;
    writes++;
    return true;
  }

  public synchronized String report() {
    return report;
  }

  public synchronized int writes() {
    return writes;
  }
}
