package com.example.tickets;

import io.relock.LockLease;
import io.relock.spring.Locked;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Service;

/**
 * Books seats, one booking per seat, across every instance of the service: the starter takes the
 * lock {@code seat:<seat>} around {@link #book} and passes its lease in.
 */
@Service
public class Seats {

  /** Seat to customer. A real service keeps this in its database, with the fencing token. */
  private final Map<String, String> bookings = new ConcurrentHashMap<>();

  /**
   * Books {@code seat} for {@code customer} unless someone has it; callers pass null for the lease.
   *
   * @return true if this call booked the seat
   */
  @Locked(value = "'seat:' + #seat", waitTime = "5s", onLost = Locked.OnLost.THROW)
  public boolean book(String seat, String customer, LockLease lease) {
    if (bookings.containsKey(seat)) {
      return false;
    }
    bookings.put(seat, customer + " (token " + lease.fencingToken() + ")");
    return true;
  }

  /** Who has {@code seat}, or null. */
  public String holder(String seat) {
    return bookings.get(seat);
  }
}
