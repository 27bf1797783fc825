package io.relock.internal;

import java.util.List;

/** The scripts relock runs; see each {@code .lua} file's header for keys, arguments and replies. */
public final class Scripts {
  public static final LuaScript ACQUIRE = LuaScript.load("acquire.lua");
  public static final LuaScript RELEASE = LuaScript.load("release.lua");
  public static final LuaScript RENEW = LuaScript.load("renew.lua");
  public static final LuaScript EXTEND = LuaScript.load("extend.lua");
  public static final LuaScript FORCE_UNLOCK = LuaScript.load("force_unlock.lua");
  public static final LuaScript INSPECT = LuaScript.load("inspect.lua");
  public static final LuaScript HOLD_PTTL = LuaScript.load("hold_pttl.lua");
  public static final LuaScript SERVER_INFO = LuaScript.load("server_info.lua");
  public static final LuaScript LOCK_INFO = LuaScript.load("lock_info.lua");
  public static final LuaScript LIST_LOCKS = LuaScript.load("list_locks.lua");

  public static final LuaScript SEMAPHORE_ACQUIRE = LuaScript.load("semaphore_acquire.lua");
  public static final LuaScript SEMAPHORE_RELEASE = LuaScript.load("semaphore_release.lua");
  public static final LuaScript SEMAPHORE_PERMITS = LuaScript.load("semaphore_permits.lua");
  public static final LuaScript READWRITE_ACQUIRE = LuaScript.load("readwrite_acquire.lua");
  public static final LuaScript READWRITE_RELEASE = LuaScript.load("readwrite_release.lua");
  public static final LuaScript READWRITE_STATE = LuaScript.load("readwrite_state.lua");
  public static final LuaScript MULTILOCK_ACQUIRE = LuaScript.load("multilock_acquire.lua");

  public static final LuaScript REDLOCK_ACQUIRE = LuaScript.load("redlock_acquire.lua");
  public static final LuaScript REDLOCK_FENCE = LuaScript.load("redlock_fence.lua");
  public static final LuaScript REDLOCK_RELEASE = LuaScript.load("redlock_release.lua");
  public static final LuaScript REDLOCK_NODE = LuaScript.load("redlock_node.lua");
  public static final LuaScript REDLOCK_INSPECT = LuaScript.load("redlock_inspect.lua");

  public static final List<LuaScript> ALL = List.of(ACQUIRE, RELEASE, RENEW, EXTEND, FORCE_UNLOCK, INSPECT, HOLD_PTTL,
      SERVER_INFO,
      SEMAPHORE_ACQUIRE, SEMAPHORE_RELEASE, SEMAPHORE_PERMITS, READWRITE_ACQUIRE, READWRITE_RELEASE, READWRITE_STATE,
      MULTILOCK_ACQUIRE, LOCK_INFO, LIST_LOCKS, REDLOCK_ACQUIRE, REDLOCK_FENCE, REDLOCK_RELEASE, REDLOCK_NODE, REDLOCK_INSPECT);

  private Scripts() {}
}
