/**
 * relock's Lettuce driver. Put this module on the class path and {@code Relock.connect(uri)} uses
 * it; or pass {@link io.relock.lettuce.LettuceDriver#using} a client you configured yourself to
 * {@code Relock.builder().driver(...)}.
 */
package io.relock.lettuce;
