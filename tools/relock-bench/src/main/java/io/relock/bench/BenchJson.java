package io.relock.bench;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Map;

/**
 * How the bench writes and reads JSON (Jackson): results files, and the lines worker processes
 * exchange with the harness. Values are maps, lists, strings, numbers, booleans and nulls; read
 * back, objects are insertion-ordered maps and whole numbers {@link Long}s. Measurements are
 * written to six significant digits (plenty, and files stay readable), and a figure that could
 * not be measured (NaN) is written as {@code null}.
 */
final class BenchJson {

  private static final ObjectMapper MAPPER = new ObjectMapper()
      .registerModule(new SimpleModule("bench-figures")
          .addSerializer(Double.class, new FigureSerializer())
          .addSerializer(double.class, new FigureSerializer()))
      .enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN)
      .enable(DeserializationFeature.USE_LONG_FOR_INTS)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  /** Two spaces per level, {@code "key": value}, short arrays on one line. */
  private static final DefaultPrettyPrinter PRETTY = new DefaultPrettyPrinter(Separators.createDefaultInstance()
      .withObjectFieldValueSpacing(Separators.Spacing.AFTER))
      .withObjectIndenter(new DefaultIndenter("  ", "\n"));

  private BenchJson() {}

  /** {@code value} as JSON on one line. */
  static String line(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot write " + value.getClass().getName() + " as JSON", e);
    }
  }

  /** {@code value} as indented JSON ending in a newline, for files people read. */
  static String pretty(Object value) {
    try {
      return MAPPER.writer(PRETTY).writeValueAsString(value) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot write " + value.getClass().getName() + " as JSON", e);
    }
  }

  /**
   * Reads one JSON object.
   *
   * @throws IllegalArgumentException if {@code text} is not exactly one JSON object, saying where
   */
  static Map<String, Object> readObject(String text) {
    try {
      return MAPPER.readValue(text, new TypeReference<Map<String, Object>>() {});
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not a JSON object: " + e.getOriginalMessage() + " at line "
          + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + " of " + abbreviate(text), e);
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 80) + "...";
  }

  /** Six significant digits; NaN and infinities, which JSON cannot carry, as null. */
  private static final class FigureSerializer extends JsonSerializer<Double> {
    @Override
    public void serialize(Double value, JsonGenerator gen, SerializerProvider serializers) throws IOException {
      double d = value;
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        gen.writeNull();
      } else {
        gen.writeNumber(new BigDecimal(d).round(new MathContext(6)).stripTrailingZeros());
      }
    }
  }
}
