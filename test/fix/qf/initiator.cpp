// A QuickFIX initiator driven line by line on stdin, reporting on stdout: the independent FIX
// counterparty of the gateway's tests (test/fix/quickfix.test.ts). It validates every message it
// receives against the dictionary it is given (UseDataDictionary=Y) and signs its Logon with Ed25519.
//
// Usage: initiator <host> <port> <sender> <target> <seed-hex|-> <dictionary> <store-dir> [reset=Y|N] [password]
// Commands (stdin):  START | SEND 35=D|11=..|... (60=now for TransactTime) | TARGETSEQ n | SENDERSEQ n | STOP
// Reports (stdout):  IN <raw> (app and admin received, SOH as |) | OUTADM <raw> | LOGON | LOGOUT | READY | ERR <text>
#include <openssl/evp.h>
#include <quickfix/Application.h>
#include <quickfix/FileStore.h>
#include <quickfix/Session.h>
#include <quickfix/SessionSettings.h>
#include <quickfix/SocketInitiator.h>
#include <quickfix/NullStore.h>
#include <quickfix/Log.h>

#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

static std::mutex outMu;
static void emit(const std::string& kind, const std::string& raw) {
  std::string s = raw;
  for (auto& c : s)
    if (c == '\x01') c = '|';
  std::lock_guard<std::mutex> g(outMu);
  std::cout << kind << (s.empty() ? "" : " ") << s << std::endl;
}

static std::string b64(const unsigned char* d, size_t n) {
  std::vector<unsigned char> out(4 * ((n + 2) / 3) + 1);
  int len = EVP_EncodeBlock(out.data(), d, static_cast<int>(n));
  return std::string(reinterpret_cast<char*>(out.data()), len);
}

static std::vector<unsigned char> unhex(const std::string& h) {
  std::vector<unsigned char> v;
  for (size_t i = 0; i + 1 < h.size(); i += 2) v.push_back(static_cast<unsigned char>(std::stoi(h.substr(i, 2), nullptr, 16)));
  return v;
}

class App : public FIX::Application {
 public:
  std::string seedHex, password;
  FIX::SessionID sid;
  void onCreate(const FIX::SessionID& s) override { sid = s; }
  void onLogon(const FIX::SessionID&) override { emit("LOGON", ""); }
  void onLogout(const FIX::SessionID&) override { emit("LOGOUT", ""); }
  void toAdmin(FIX::Message& m, const FIX::SessionID&) override {
    FIX::MsgType t;
    m.getHeader().getField(t);
    if (t == FIX::MsgType_Logon && seedHex != "-") {
      FIX::SenderCompID snd; FIX::TargetCompID tgt; FIX::MsgSeqNum seq; FIX::SendingTime st;
      m.getHeader().getField(snd);
      m.getHeader().getField(tgt);
      m.getHeader().getField(seq);
      m.getHeader().getField(st);
      std::string sendingTime = m.getHeader().getField(FIX::FIELD::SendingTime);
      std::ostringstream p;
      p << "A" << '\x01' << snd.getValue() << '\x01' << tgt.getValue() << '\x01' << seq.getValue() << '\x01' << sendingTime;
      std::string payload = p.str();
      std::vector<unsigned char> seed = unhex(seedHex);
      EVP_PKEY* key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, seed.data(), seed.size());
      EVP_MD_CTX* ctx = EVP_MD_CTX_new();
      unsigned char sig[64];
      size_t sigLen = sizeof sig;
      EVP_DigestSignInit(ctx, nullptr, nullptr, nullptr, key);
      EVP_DigestSign(ctx, sig, &sigLen, reinterpret_cast<const unsigned char*>(payload.data()), payload.size());
      EVP_MD_CTX_free(ctx);
      EVP_PKEY_free(key);
      std::string s = b64(sig, sigLen);
      m.setField(FIX::RawDataLength(static_cast<int>(s.size())));
      m.setField(FIX::RawData(s));
      m.setField(FIX::Username(snd.getValue()));
      if (!password.empty()) m.setField(FIX::Password(password));
    }
    if (t != FIX::MsgType_Logon) emit("OUTADM", m.toString());
  }
  void fromAdmin(const FIX::Message& m, const FIX::SessionID&) throw(FIX::FieldNotFound, FIX::IncorrectDataFormat,
                                                                     FIX::IncorrectTagValue, FIX::RejectLogon) override {
    emit("IN", m.toString());
  }
  void toApp(FIX::Message&, const FIX::SessionID&) throw(FIX::DoNotSend) override {}
  void fromApp(const FIX::Message& m, const FIX::SessionID&) throw(FIX::FieldNotFound, FIX::IncorrectDataFormat,
                                                                   FIX::IncorrectTagValue, FIX::UnsupportedMessageType) override {
    emit("IN", m.toString());
  }
};

static std::string nowStamp() {
  FIX::UtcTimeStamp t;
  return FIX::UtcTimeStampConvertor::convert(t, true);
}

int main(int argc, char** argv) {
  if (argc < 8) {
    std::cerr << "usage: initiator host port sender target seed dictionary storeDir [reset] [password]" << std::endl;
    return 2;
  }
  std::string host = argv[1], port = argv[2], sender = argv[3], target = argv[4], seed = argv[5], dict = argv[6],
              store = argv[7];
  std::string reset = argc > 8 ? argv[8] : "N";
  App app;
  app.seedHex = seed;
  app.password = argc > 9 ? argv[9] : "";
  std::ostringstream cfg;
  cfg << "[DEFAULT]\nConnectionType=initiator\nReconnectInterval=1\nHeartBtInt=5\nStartTime=00:00:00\nEndTime=00:00:00\n"
      << "UseDataDictionary=Y\nDataDictionary=" << dict << "\nValidateUserDefinedFields=Y\nFileStorePath=" << store
      << "\nResetOnLogon=" << reset << "\nSocketNoDelay=Y\nCheckLatency=N\n"
      << "[SESSION]\nBeginString=FIX.4.4\nSenderCompID=" << sender << "\nTargetCompID=" << target
      << "\nSocketConnectHost=" << host << "\nSocketConnectPort=" << port << "\n";
  std::istringstream in(cfg.str());
  try {
    FIX::SessionSettings settings(in);
    FIX::FileStoreFactory storeFactory(settings);
    FIX::ScreenLogFactory* logs = nullptr;
    (void)logs;
    FIX::SocketInitiator initiator(app, storeFactory, settings);
    emit("READY", "");
    std::string line;
    while (std::getline(std::cin, line)) {
      if (line == "START") {
        initiator.start();
      } else if (line == "STOP") {
        initiator.stop();
        break;
      } else if (line.rfind("TARGETSEQ ", 0) == 0) {
        FIX::Session* s = FIX::Session::lookupSession(app.sid);
        s->setNextTargetMsgSeqNum(std::stoi(line.substr(10)));
        emit("OK", "");
      } else if (line.rfind("SENDERSEQ ", 0) == 0) {
        FIX::Session* s = FIX::Session::lookupSession(app.sid);
        s->setNextSenderMsgSeqNum(std::stoi(line.substr(10)));
        emit("OK", "");
      } else if (line.rfind("SEND ", 0) == 0) {
        FIX::Message m;
        std::istringstream fs(line.substr(5));
        std::string kv;
        while (std::getline(fs, kv, '|')) {
          size_t eq = kv.find('=');
          if (eq == std::string::npos) continue;
          int tag = std::stoi(kv.substr(0, eq));
          std::string v = kv.substr(eq + 1);
          if (v == "now") v = nowStamp();
          if (tag == 35) m.getHeader().setField(tag, v);
          else m.setField(tag, v);
        }
        try {
          FIX::Session::sendToTarget(m, app.sid);
          emit("OK", "");
        } catch (std::exception& e) {
          emit("ERR", e.what());
        }
      }
    }
  } catch (std::exception& e) {
    emit("ERR", e.what());
    return 1;
  }
  return 0;
}
