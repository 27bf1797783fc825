package com.example.billing;

import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.stereotype.Component;

/** The leader's duties start and stop here (a real application starts its billing endpoints). */
@Component
public class BillingLeader extends DefaultCandidate {
  private volatile boolean leading;

  public BillingLeader() {
    super("billing-" + ProcessHandle.current().pid(), "billing-leader");
  }

  @Override
  public void onGranted(Context context) {
    leading = true;
  }

  @Override
  public void onRevoked(Context context) {
    leading = false;
  }

  public boolean isLeading() {
    return leading;
  }
}
